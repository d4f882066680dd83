import type { OpenAPIV3_1 } from 'openapi-types';
import { bodyErrors, writeErrors, jsonBody, jsonResponse, ref, responseRef, type PathItems } from '../components.js';

const simHeader: OpenAPIV3_1.ResponseObject['headers'] = {
  'x-svc-sim': {
    description: 'Marks an operation that production has but its formal contract does not declare.',
    required: true,
    schema: { enum: ['fuera-de-contrato'] },
  },
};

export const accountPaths: PathItems = {
  '/console/register': {
    post: {
      operationId: 'registerAccount',
      summary: 'Self-service sign-up (INTERFACE.md §1)',
      tags: ['accounts'],
      security: [],
      requestBody: jsonBody('RegisterRequest'),
      responses: {
        '201': jsonResponse(
          'The new account with its API key, console token and default receivers.',
          ref('Registration'),
        ),
        ...bodyErrors,
        ...writeErrors,
        '409': responseRef('Conflict'),
      },
    },
  },
  '/register': {
    post: {
      operationId: 'registerAccountLegacy',
      summary: 'Legacy sign-up, without a console token; kept for compatibility',
      deprecated: true,
      tags: ['accounts'],
      security: [],
      requestBody: jsonBody('RegisterRequest'),
      responses: {
        '201': jsonResponse('The new account with its API key and default receivers.', ref('LegacyRegistration')),
        ...bodyErrors,
        ...writeErrors,
        '409': responseRef('Conflict'),
      },
    },
  },
  '/api/svcpagos/login': {
    post: {
      operationId: 'login',
      summary: 'Log in by email or short_name; rotates the console token',
      tags: ['accounts'],
      security: [],
      requestBody: jsonBody('LoginRequest'),
      responses: {
        '200': jsonResponse(
          'A login token (expires after expires_in s), a refresh token and the new console token.',
          ref('Session'),
        ),
        ...bodyErrors,
        ...writeErrors,
        '401': responseRef('Unauthorized'),
      },
    },
  },
  '/api/svcpagos/refresh-token': {
    post: {
      operationId: 'refreshToken',
      summary: 'New login token from a refresh token; outside the formal contract',
      tags: ['accounts'],
      security: [],
      requestBody: jsonBody('RefreshRequest'),
      responses: {
        '200': jsonResponse(
          'Like login, without rotating the console token. The previous refresh token stays valid.',
          ref('Session'),
          simHeader,
        ),
        ...bodyErrors,
        ...writeErrors,
        '401': responseRef('Unauthorized'),
      },
    },
  },
};
