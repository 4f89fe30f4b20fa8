import type { HttpStatsClient } from '../../reporter/client.js';
import type { Inputs } from '../../reporter/inputs.js';
import type { RunContext } from '../../reporter/run-context.js';
import type { ComparedKey } from '../../reporter/verdict/comparison.js';
import {
  formatChange,
  formatNumber,
  limitText,
  type VerdictFacts,
} from '../../reporter/verdict/verdict-view.js';
import type { Runner } from '../step.js';
import { publishVerdict } from './publish-verdict.js';
import type { VerdictInputs } from './verdict-inputs.js';

export interface VerdictOutcome {
  /** The verdict as Markdown, for the job summary. */
  markdown: string;
  regressions: ComparedKey[];
  /** One line per regression, for a step that fails on them. */
  regressionLines: string[];
}

/** One line per regression, for the log and the failed step. */
export function regressionLine(key: ComparedKey): string {
  const unit = key.unit ? ` ${key.unit}` : '';
  return `regression: ${key.key} is ${formatNumber(key.value)}${unit} against ${formatNumber(key.baseline)}${unit} (${formatChange(key.change)}; ${limitText(key)})`;
}

/**
 * After a metric record was stored: the server's verdict on it (`/stats/compare`), put on the
 * pull request and in a check run as the inputs ask. A server that cannot give one (an older
 * server, an outage) costs a warning, never the step.
 */
export async function verdictStep(
  runner: Runner,
  client: HttpStatsClient,
  inputs: Inputs,
  verdictInputs: VerdictInputs,
  github: RunContext,
  metricId: string,
): Promise<VerdictOutcome | undefined> {
  let facts: VerdictFacts;
  try {
    const comparison = await client.compare(inputs.projectId, metricId);
    const counts = inputs.tests?.counts;
    facts = {
      projectId: inputs.projectId,
      comparison,
      link:
        verdictInputs.shareUrl ??
        `${inputs.baseUrl}/dashboard/projects/${encodeURIComponent(inputs.projectId)}`,
      ...(counts ? { tests: counts } : {}),
    };
  } catch (error) {
    runner.warning(`No verdict from the server: ${(error as Error).message}`);
    return undefined;
  }
  const publication = await publishVerdict(
    verdictInputs,
    facts,
    github,
    inputs.tests?.located ?? [],
  );
  for (const line of publication.done) runner.info(`ci-stats: ${line}`);
  for (const warning of publication.warnings) runner.warning(warning);
  const regressions = facts.comparison.keys.filter((key) => key.verdict === 'regression');
  const regressionLines = regressions.map(regressionLine);
  for (const line of regressionLines) runner.info(line);
  return { markdown: publication.markdown, regressions, regressionLines };
}
