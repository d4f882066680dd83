import { jsonResponse, ref, responseRef, type PathItems } from '../components.js';

export const consolePaths: PathItems = {
  '/console/keys': {
    get: {
      operationId: 'getConsoleKeys',
      summary: "The account's API keys and default receivers",
      tags: ['console'],
      security: [{ consoleBearer: [] }],
      responses: {
        '200': jsonResponse('Keys with their webhook secrets, and the default receiver URLs.', ref('ConsoleKeys')),
        '401': responseRef('Unauthorized'),
      },
    },
  },
};
