import type { Headline, HeadlineFigure } from '../../../../../contract/project-page.js';
import { formatFigure } from '../../../../domain/unit-format.js';
import { Csrf } from '../../dashboard/form-controls.js';
import { CsvLink } from './csv-link.js';
import { formatNumber } from './format.js';

/**
 * A figure as shown: a rate in per cent, a count as is, a value with its series' unit (a
 * duration as people say it: `1 min 56 s`, `850 ms`; unit-format.ts).
 */
type Kind = 'count' | 'rate' | 'value';

function show(value: number, kind: Kind, unit: string | null): string {
  if (kind === 'rate') return `${(value * 100).toFixed(1)} %`;
  return kind === 'value' ? formatFigure(value, unit) : formatNumber(value);
}

/**
 * The change against the period before: ▲ or ▼ and by how much (a rate in percentage points),
 * `good` or `bad` by the figure's direction (neither when it has none or nothing changed).
 */
export function changeOf(figure: HeadlineFigure, kind: Kind) {
  const { value, previous, direction } = figure;
  if (value === null || previous === null) return undefined;
  const delta = value - previous;
  if (delta === 0) return { arrow: '=', text: 'no change', tone: 'same' as const };
  const size =
    kind === 'rate'
      ? `${(Math.abs(delta) * 100).toFixed(1)} pp`
      : show(Math.abs(delta), kind, figure.unit);
  const better = direction === null ? undefined : delta > 0 === (direction === 'higher');
  return {
    arrow: delta > 0 ? '▲' : '▼',
    text: size,
    tone: better === undefined ? ('same' as const) : better ? ('good' as const) : ('bad' as const),
  };
}

function Figure({
  name,
  figure,
  kind,
  id,
}: {
  name: string;
  figure: HeadlineFigure;
  kind: Kind;
  id: string;
}) {
  const change = changeOf(figure, kind);
  const before =
    figure.previous === null ? 'none' : show(figure.previous, kind, figure.unit ?? null);
  return (
    <div class="figure" data-figure={id}>
      <dt class="stat-label">{name}</dt>
      <dd class="stat-value" data-value={figure.value ?? ''}>
        {figure.value === null ? '–' : show(figure.value, kind, figure.unit)}
      </dd>
      <dd class={`change ${change ? `change-${change.tone}` : 'change-none'}`} data-change>
        {change ? (
          <>
            <span aria-hidden="true">{change.arrow}</span> {change.text}
            <span class="sr-only">
              {change.tone === 'good' ? ' (better)' : change.tone === 'bad' ? ' (worse)' : ''}
            </span>
          </>
        ) : (
          'no comparison'
        )}
        <span class="muted"> (before: {before})</span>
      </dd>
    </div>
  );
}

/**
 * The answer first: six figures over the range, each against the period of the same length
 * just before it; the owner names the build-duration key here.
 */
export function HeadlineCard({
  headline,
  keys,
  owner,
  csv,
  workflow,
}: {
  headline: Headline;
  /** The workflow the page is filtered to, and the page of every workflow. */
  workflow?: { name: string; all: string } | undefined;
  /** The figures as CSV (owner pages). */
  csv?: string | undefined;
  /** Keys offered for the build-duration key. */
  keys: string[];
  owner: { path: string; csrf: string } | undefined;
}) {
  const key = headline.duration_key;
  return (
    <section class="card headline" aria-labelledby="headline-title">
      <h2 id="headline-title" class="sr-only">
        Headline
      </h2>
      {workflow && (
        <p class="filter-note" data-headline-workflow>
          Workflow <code>{workflow.name}</code> only, by whole hours (active alerts and flaky tests
          are of every workflow). <a href={workflow.all}>Show every workflow</a>
        </p>
      )}
      <dl class="figures">
        <Figure name="Builds" figure={headline.builds} kind="count" id="builds" />
        <Figure name="Success rate" figure={headline.success_rate} kind="rate" id="success_rate" />
        <Figure
          name="Median build duration"
          figure={headline.duration_p50}
          kind="value"
          id="duration_p50"
        />
        <Figure
          name="p95 build duration"
          figure={headline.duration_p95}
          kind="value"
          id="duration_p95"
        />
        <Figure
          name="Active alerts"
          figure={headline.active_alerts}
          kind="count"
          id="active_alerts"
        />
        <Figure name="Flaky tests" figure={headline.flaky_tests} kind="count" id="flaky_tests" />
      </dl>
      <p class="hint">
        Against the period of the same length just before (
        {headline.previous_from.slice(0, 16).replace('T', ' ')}
        {' – '}
        {headline.previous_to.slice(0, 16).replace('T', ' ')} UTC). Build duration:{' '}
        {key === null ? 'no key yet' : <code>{key}</code>}
        {key !== null && !headline.duration_key_set && ' (default)'}.{' '}
        <CsvLink href={csv} what="the headline" />
      </p>
      {owner && (
        <form method="post" action={`${owner.path}/duration-key`} class="duration-key">
          <Csrf token={owner.csrf} />
          <label for="duration-key">Build-duration key</label>
          <input
            id="duration-key"
            name="duration_key"
            list="duration-keys"
            maxlength={200}
            value={headline.duration_key_set ? (key ?? '') : ''}
            placeholder="duration_ms"
          />
          <datalist id="duration-keys">
            {keys.map((k) => (
              <option value={k} />
            ))}
          </datalist>
          <button class="button secondary small" type="submit">
            Set
          </button>
        </form>
      )}
    </section>
  );
}
