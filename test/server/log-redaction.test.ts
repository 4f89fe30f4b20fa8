import { expect, it } from 'vitest';
import { logRedaction } from '../../server/log-redaction.js';

/** server/log-redaction.ts: what each log line is scrubbed of, as pino serialised it. */

const KEY = `cis_${'A1b2-C3_'.repeat(5)}xyz`;
const SHARE = `cis_share_${'Qw-9_'.repeat(8)}abc`;
const scrub = logRedaction(['admin-token-0123456789', 'bootstrap "quoted" key\\x', undefined]);

it.each([
  [`{"url":"/share/${SHARE}"}`, '{"url":"/share/[redacted]"}'],
  [
    `{"url":"/share/${SHARE}/badge/status.svg?branch=main"}`,
    '{"url":"/share/[redacted]/badge/status.svg?branch=main"}',
  ],
  ['{"url":"/share/not-a-real-token?x=1"}', '{"url":"/share/[redacted]?x=1"}'],
  [
    `{"url":"/stats/get-projects?apiKey=${KEY}"}`,
    '{"url":"/stats/get-projects?apiKey=[redacted]"}',
  ],
  [`{"msg":"key ${KEY} revoked"}`, '{"msg":"key [redacted] revoked"}'],
  [
    '{"err":"POST https://discord.com/api/webhooks/123/tok_en-1?wait=true"}',
    '{"err":"POST https://discord.com/api/webhooks/123/[redacted]?wait=true"}',
  ],
  [
    '{"cookie":"cistats_session=abc; __Host-cistats_presession=def"}',
    '{"cookie":"cistats_session=[redacted]; __Host-cistats_presession=[redacted]"}',
  ],
  ['{"msg":"token admin-token-0123456789 used"}', '{"msg":"token [redacted] used"}'],
  [`{"msg":${JSON.stringify('bootstrap "quoted" key\\x!')}}`, '{"msg":"[redacted]!"}'],
  [
    '{"msg":"cis_ab and a prefix cis_abcdef","n":1}',
    '{"msg":"cis_ab and a prefix [redacted]","n":1}',
  ],
  [
    '{"msg":"nothing secret here","url":"/stats/get-events?projectId=p"}',
    '{"msg":"nothing secret here","url":"/stats/get-events?projectId=p"}',
  ],
])('%s', (line, expected) => {
  expect(scrub(line)).toBe(expected);
});
