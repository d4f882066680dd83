// What svc-contracts says to --help.

export const usage = `usage: svc-contracts --base-url URL [--allow-mutations] [--profile interface|strict]
                     [--checks IDS] [--exclude-checks IDS] [--operation OPS]
                     [--report FILE] [--junit FILE] [--request-timeout D] [--settle-timeout D]
                     [--token-file FILE] [--console-token-file FILE]
       svc-contracts --list-checks
       svc-contracts receiver --url URL --secret-file FILE [...]   (grade a webhook receiver; receiver --help)

Runs the contract suite: every answer is checked against the OpenAPI
document (status, media type, required headers, body), and behavioural
checks put each rule of the interface to the test with its exact
status and error code. Read-only unless --allow-mutations: then it
registers accounts and creates orders, sessions, stops… on the deployment
(never point that at production), moving only those accounts' clocks.

  --base-url URL        the deployment
  --allow-mutations     create data: the behavioural checks, the negative
                        requests, the rate brake and coverage
  --profile P           strict (default): this document as it is, served
                        document included; interface: only what the interface
                        fixes (ids are opaque strings, other fields
                        allowed…), for another implementation of the interface
  --checks IDS          run only these checks (comma-separated ids or areas:
                        orders, orders.lists…; see --list-checks)
  --exclude-checks IDS  leave these out
  --operation OPS       only the checks that exercise these operations
                        (operationIds or tags), and their answers
  --list-checks         list the checks with their sources, and exit
  --report FILE         write the JSON report there: checks, failed
                        expectations and violations (request, operation,
                        status, pointer, expected, got, curl), violations
                        grouped with a count, coverage
  --junit FILE          write JUnit XML there (for CI): a test case per check,
                        per way answers break the document, per operation ×
                        status exercised and per coverage gap
  --request-timeout D   a request not answered within D (default 10s; a
                        duration with its unit, 500ms, 30s, as everywhere)
                        fails its check, named, and the run goes on; so does
                        one that meets a network error
  --settle-timeout D    how long to wait for work the deployment does in the
                        background (a delivery, an accreditation) before a
                        check says it did not happen (default 5s)
  --token-file FILE     an API token, for authenticated reads (read-only
                        runs), from a file or SVC_TOKEN (--token T works,
                        with a warning: ps shows it)
  --console-token-file FILE  a console token, for the console reads
                        (read-only runs), or SVC_CONSOLE_TOKEN
                        (--console-token T, with the same warning)

Progress goes to stderr, a line per check as it ends: ✓ held, ✗ failed,
- skipped with the reason. The summary goes to stdout.

Exit code: 0 when every check held and nothing broke the document, 1
otherwise, 2 for a usage error, 3 when the base URL cannot be reached at
all (nothing was checked).
`;
