import type { Report } from './report.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The line the `message` output and the step log carry. */
export function describeReport(report: Report): string {
  // Only JUnit globs or benchmark files were given, and held nothing: there was nothing to send.
  if (report.results.length === 0)
    return 'nothing sent: no event, no metrics, no JUnit report or benchmark found';
  if (report.dryRun) return `dry run: ${report.results.length} request(s) validated, nothing sent`;
  return report.results
    .map(({ request, acknowledgement, error }) =>
      acknowledgement
        ? `${request.kind} ${acknowledgement.replayed ? 'already stored' : 'stored'} (${acknowledgement.id})`
        : `${request.kind} not stored: ${error?.message}`,
    )
    .join('; ');
}

export interface SummaryTable {
  heading: string;
  rows: { data: string; header?: boolean }[][];
  footer: string;
}

/**
 * The job summary: what was sent and what came of it. It names the server's origin and the
 * project, never the API key or the webhook URL; every value is HTML-escaped.
 */
export function summaryTable(report: Report, baseUrl: string, projectId: string): SummaryTable {
  const header = ['Record', 'Details', 'Result', 'Id'].map((data) => ({ data, header: true }));
  const rows = report.results.map(({ request, acknowledgement, error }) => {
    const body = request.body as {
      eventType?: string;
      payload: Record<string, unknown>;
      chatWebhook?: unknown;
    };
    const details =
      request.kind === 'tests'
        ? escapeHtml(acknowledgement?.message ?? 'test cases')
        : request.kind === 'event'
          ? `<code>${escapeHtml(body.eventType ?? '')}</code>${body.chatWebhook ? ' + Discord notification' : ''}`
          : `${Object.keys(body.payload)
              .filter((k) => k !== 'github' && k !== 'ci')
              .map((k) => `<code>${escapeHtml(k)}</code>`)
              .join(', ')}`;
    const result = report.dryRun
      ? 'validated (dry run)'
      : acknowledgement
        ? acknowledgement.replayed
          ? '✅ already stored'
          : '✅ stored'
        : `❌ ${escapeHtml(error?.message ?? '')}`;
    return [
      { data: request.kind === 'event' ? 'Event' : request.kind === 'tests' ? 'Tests' : 'Metric' },
      { data: details },
      { data: result },
      { data: acknowledgement?.id ? `<code>${escapeHtml(acknowledgement.id)}</code>` : '' },
    ];
  });
  // The server's whole address: behind a proxy under a path (BASE_PATH) the origin is not it.
  const server = new URL(baseUrl);
  const address = `${server.origin}${server.pathname.replace(/\/+$/, '')}`;
  return {
    heading: 'CI stats',
    rows: [header, ...rows],
    footer: `Server ${escapeHtml(address)}, project <code>${escapeHtml(projectId)}</code>`,
  };
}
