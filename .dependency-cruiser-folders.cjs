// Folder loops inside server/ (npm run lint:deps runs this beside .dependency-cruiser.cjs): the server's parts
// are layers, so no two of its folders may reach each other through imports, not even round a loop
// (docs/layout.md). A file-level rule cannot see such a loop: each file may be acyclic while the folders are not.
// Shipped code only: tests, test kits and the server's root files (app.ts wires every part; errors.ts is
// the floor under them) are left out of the folder graph.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles-in-server',
      comment: 'No two folders of server/ reach each other through imports, directly or round a loop.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^server/' },
      to: { path: '^server/', circular: true },
    },
  ],
  options: {
    doNotFollow: { path: '^(?!server/)' },
    exclude: {
      path: '^(?:node_modules|dist|\\.tap|reports|\\.stryker-tmp)/|^server/[^/]+\\.ts$|\\.test\\.ts$|-testkit\\.ts$|/testing/',
    },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
