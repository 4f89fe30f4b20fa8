import { VERSION } from './version.js';

export const MAIN_HELP = `ci-stats ${VERSION}: report CI builds, metrics and test results to a ci-stats server

Usage:
  ci-stats report [options]   send an event and/or a metric record (see ci-stats report --help)
  ci-stats import github-action-benchmark --file <data.js>
                              import github-action-benchmark's history (see ci-stats import --help)
  ci-stats --help             this text
  ci-stats --version          the version
`;

export const IMPORT_HELP = `Usage: ci-stats import github-action-benchmark --file <data.js or data.json> [options]

Imports the history github-action-benchmark keeps in its gh-pages branch (dev/bench/data.js, or
the same object as data.json) into a project: one metric record per entry of each benchmark set,
with the entry's own date, commit, units and directions (docs/benchmarks.md). Sent in batches of
5,000 records through POST /stats/import-records; a run cut short is run again
and stores nothing twice. Needs an owner's key (an ingest-only key is refused).

Settings from the environment (flags override them):
  CI_STATS_API_KEY            API key (required; never accepted as a flag)
  CI_STATS_BASE_URL           server base URL                                   (--base-url)
  CI_STATS_PROJECT_ID         project that receives the records                 (--project-id)

Options:
  --file <path>               the data.js or data.json file (required)
  --branch <name>             the branch the history was recorded on (github-action-benchmark
                              does not keep it): recorded on every record
  --project <id>              the same as --project-id
  --help                      this text

Exit codes: 0 imported; 1 the server refused or failed (run again to go on); 2 bad input.
`;

export const REPORT_HELP = `Usage: ci-stats report [options]

Sends an event (with --event-type) and/or a metric record (with --metrics, --metrics-file,
--junit or --benchmark-file) to a project on a ci-stats server. Every payload gets a "ci"
object describing the build (GitHub Actions, GitLab CI, CircleCI, Jenkins, Buildkite, Azure
Pipelines, Bitbucket Pipelines, Gitea/Forgejo Actions, Woodpecker, or the local git checkout).

Settings from the environment (flags override them):
  CI_STATS_API_KEY            API key (required; never accepted as a flag)
  CI_STATS_BASE_URL           server base URL, e.g. https://stats.example.com   (--base-url)
  CI_STATS_PROJECT_ID         project that receives the records                 (--project-id)
  CI_STATS_CHAT_WEBHOOK_URL   Discord webhook notified with the event (a secret: environment only)
  CI_STATS_GITLAB_TOKEN       on a GitLab merge request: post the verdict as one note, edited in
                              place (a project access token with the api scope; environment only)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY   proxy settings

Options:
  --event-type <type>         send an event of this type (build, deploy, release...)
  --description <text>        the event's description
  --payload <json>            JSON object merged into the event payload
  --color <color>             event colour: integer, #rrggbb or 0xrrggbb (default from status)
  --status <status>           success, failure or cancelled (default: from --junit reports)
  --metrics <json>            JSON object of metrics
  --metrics-file <path>       JSON file with a metrics object (--metrics is merged over it)
  --junit <glob>              JUnit XML reports to count (repeatable); every case is sent
  --ctrf <glob>               CTRF JSON reports, likewise (repeatable)
  --quarantine                the reports' tests decide the exit code: 0 when every failed test
                              is quarantined on the server (one line each), 1 when any other
                              failed; the event's status says the same
  --benchmark-tool <tool>     the harness that wrote --benchmark-file: cargo, go, benchmarkjs,
                              benchmarkluau, pytest, googlecpp, catch2, julia, jmh,
                              benchmarkdotnet, customBiggerIsBetter, customSmallerIsBetter,
                              hyperfine or bmf (github-action-benchmark's names)
  --benchmark-file <path>     benchmark output to send as series with units (repeatable; a glob)
  --chat-title <text>         notification title
  --chat-description <text>   notification text
  --chat-color <color>        notification colour
  --no-context                leave the "ci" object out of the payloads
  --fail-on-error             exit 1 when the server cannot be reached after the retries
  --compare                   print the server's verdict on the metric record (GET /stats/compare)
  --fail-on-regression        exit 1 when that verdict finds a regression (implies --compare)
  --timeout-seconds <n>       timeout of each attempt (default 10)
  --retries <n>               retries after a network error, timeout, 429 or 5xx (default 3)
  --dry-run                   validate and print the requests without sending them
  --json                      print one JSON object with what was stored, on stdout
  -h, --help                  this text

Exit codes: 0 stored (or unreachable without --fail-on-error: a warning), 1 refused by the server,
unreachable with --fail-on-error, or (with --quarantine) a failed test that is not quarantined,
2 usage or configuration error.
`;
