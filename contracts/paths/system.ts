import { jsonResponse, ref, type PathItems } from '../components.js';

export const systemPaths: PathItems = {
  '/': {
    get: {
      operationId: 'showHome',
      'x-ours': true, // not an operation of the interface (profiles.ts)
      summary: 'A landing page linking the console, this document and /fidelidad, with the first steps',
      tags: ['simulator'],
      security: [],
      responses: { '200': { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
  '/favicon.ico': {
    get: {
      operationId: 'getFavicon',
      'x-ours': true, // not an operation of the interface (profiles.ts)
      summary: 'The icon browsers ask for',
      tags: ['simulator'],
      security: [],
      responses: {
        '200': {
          description: 'A 16×16 icon.',
          content: { 'image/x-icon': { schema: { type: 'string', contentMediaType: 'image/x-icon' } } },
        },
      },
    },
  },
  '/health': {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness probe',
      tags: ['simulator'],
      security: [],
      responses: {
        '200': jsonResponse('The server is up; names its store.', ref('Health')),
        '503': {
          ...jsonResponse(
            'The server is up but its store cannot take work (the database is away, or the journal failed); says why.',
            ref('Health'),
          ),
          headers: {
            'Retry-After': {
              required: true,
              description: 'Seconds to wait before asking again.',
              schema: { type: 'integer', minimum: 0 },
            },
          },
        },
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      'x-listing-optional': true, // served, but a served document need not list itself (profiles.ts)
      summary: 'This OpenAPI 3.1 document',
      tags: ['simulator'],
      security: [],
      responses: {
        '200': jsonResponse('The document.', {
          type: 'object',
          required: ['openapi'],
          properties: { openapi: { enum: ['3.1.0'] } },
        }),
      },
    },
  },
};
