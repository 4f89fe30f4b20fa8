import { PENDING_COUNT_MAX } from '../../../../services/verdicts/verdict-reads.js';
import { formatNumber } from '../../project-stats/views/format.js';

/**
 * At the top of a page that stopped waiting for the judging (issue 28: `judgedForPage`): how many
 * records are still to judge, and that the page's verdicts and alerts may lack theirs. A status
 * (`role="status"`), read out by screen readers without taking the focus; nothing when all is
 * judged.
 */
export function JudgingNotice({ pending }: { pending: number }) {
  if (pending <= 0) return null;
  // The count stops at PENDING_COUNT_MAX (its cost): that many or more.
  const count =
    pending >= PENDING_COUNT_MAX ? `${formatNumber(pending)} or more` : formatNumber(pending);
  const records = pending === 1 ? 'record' : 'records';
  return (
    <p class="notice warn" role="status" data-judging-pending={String(pending)}>
      {`Judging ${count} new ${records}: verdicts and alerts may be incomplete; refresh in a moment.`}
    </p>
  );
}
