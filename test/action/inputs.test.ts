import { describe, expect, it } from 'vitest';
import { parseColor } from '../../reporter/color.js';
import { InputError } from '../../reporter/input-error.js';
import { parseInputs } from '../../reporter/inputs.js';

const base = {
  'api-key': 'key',
  'base-url': 'https://stats.example.com/',
  'project-id': 'p1',
  'event-type': 'build',
};

const parse = (inputs: Record<string, string>, files: Record<string, string> = {}) =>
  parseInputs(
    (name) => inputs[name] ?? '',
    (path) => {
      const content = files[path];
      if (content === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return content;
    },
  );

function inputErrorOf(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected an InputError');
}

describe('parseColor', () => {
  it.each([
    ['16711680', 0xff0000],
    ['#ff0000', 0xff0000],
    ['#FF00aa', 0xff00aa],
    ['0x00ff00', 0x00ff00],
    ['0', 0],
    ['16777215', 0xffffff],
    [' 42 ', 42],
    ['', undefined],
    ['16777216', null],
    ['#fff', null],
    ['red', null],
    ['-1', null],
    ['1.5', null],
    ['0xgg0000', null],
  ])('%j -> %s', (text, expected) => {
    expect(parseColor(text)).toBe(expected);
  });
});

describe('parseInputs', () => {
  it('keeps the path of a server behind a proxy under a path (BASE_PATH), without its last /', () => {
    for (const url of ['https://example.com/ci-stats', 'https://example.com/ci-stats/']) {
      expect(parse({ ...base, 'base-url': url }).baseUrl, url).toBe('https://example.com/ci-stats');
    }
  });

  it('has the documented defaults', () => {
    expect(parse(base)).toEqual({
      apiKey: 'key',
      baseUrl: 'https://stats.example.com',
      projectId: 'p1',
      event: { type: 'build', description: undefined, payload: {}, color: undefined },
      metrics: undefined,
      junitGlobs: [],
      ctrfGlobs: [],
      quarantine: false,
      benchmarkTool: undefined,
      benchmarkFiles: [],
      status: undefined,
      warnings: [],
      chat: undefined,
      includeContext: true,
      failOnError: false,
      timeoutSeconds: 10,
      retries: 3,
      dryRun: false,
    });
  });

  it('quarantine: true or false, and only with test reports to judge', () => {
    expect(parse({ ...base, quarantine: 'true', 'ctrf-files': 'r.json' }).quarantine).toBe(true);
    expect(inputErrorOf(() => parse({ ...base, quarantine: 'yes' })).input).toBe('quarantine');
    const alone = inputErrorOf(() => parse({ ...base, quarantine: 'true' }));
    expect(alone.input).toBe('quarantine');
    expect(alone.detail).toContain('needs junit-files or ctrf-files');
  });

  it('reads every input', () => {
    const inputs = parse({
      ...base,
      description: 'Deployed',
      payload: '{"version":"1.2.3"}',
      color: '#00ff00',
      status: 'Failure',
      metrics: '{"duration_ms": 1200}',
      'chat-webhook-url': 'https://discord.com/api/webhooks/1/t',
      'chat-title': 'Release',
      'chat-description': 'Out now',
      'chat-color': '0xff0000',
      'include-context': 'false',
      'fail-on-error': 'TRUE',
      'timeout-seconds': '2.5',
      retries: '0',
      'dry-run': 'true',
      'junit-files': ' reports/*.xml\n\n  build/test-results/**/TEST-*.xml \n',
    });
    expect(inputs).toMatchObject({
      event: {
        type: 'build',
        description: 'Deployed',
        payload: { version: '1.2.3' },
        color: 0x00ff00,
      },
      metrics: { duration_ms: 1200 },
      junitGlobs: ['reports/*.xml', 'build/test-results/**/TEST-*.xml'],
      status: 'failure',
      chat: {
        webhookUrl: 'https://discord.com/api/webhooks/1/t',
        title: 'Release',
        description: 'Out now',
        color: 0xff0000,
      },
      includeContext: false,
      failOnError: true,
      timeoutSeconds: 2.5,
      retries: 0,
      dryRun: true,
    });
  });

  it('a metric alone is fine; metrics-file is read and the inline object overrides it', () => {
    const inputs = parse(
      { ...base, 'event-type': '', 'metrics-file': 'm.json', metrics: '{"b": 3}' },
      { 'm.json': '{"a": 1, "b": 2}' },
    );
    expect(inputs.event).toBeUndefined();
    expect(inputs.metrics).toEqual({ a: 1, b: 3 });
  });

  it('test reports alone are fine: they make a metric', () => {
    const inputs = parse({ ...base, 'event-type': '', 'junit-files': 'reports/*.xml' });
    expect(inputs.event).toBeUndefined();
    expect(inputs.metrics).toBeUndefined();
    expect(inputs.junitGlobs).toEqual(['reports/*.xml']);
  });

  it.each([
    [{ 'api-key': '' }, 'api-key', 'is required'],
    [{ 'base-url': '' }, 'base-url', 'is required'],
    [{ 'base-url': 'stats.example.com' }, 'base-url', 'absolute URL'],
    [{ 'base-url': 'ftp://stats.example.com' }, 'base-url', 'https'],
    [{ 'base-url': 'https://x.example?a=1' }, 'base-url', 'query'],
    [{ 'project-id': ' ' }, 'project-id', 'is required'],
    [{ 'event-type': '' }, 'event-type', 'event-type to send an event'],
    [{ payload: '{nope' }, 'payload', 'not valid JSON'],
    [{ payload: '[1,2]' }, 'payload', 'JSON object'],
    [{ metrics: '"x"' }, 'metrics', 'JSON object'],
    [{ 'metrics-file': 'missing.json' }, 'metrics-file', 'ENOENT'],
    [{ color: 'blue' }, 'color', '#rrggbb'],
    [{ 'chat-color': '#12345' }, 'chat-color', '#rrggbb'],
    [{ 'fail-on-error': 'yes' }, 'fail-on-error', 'true or false'],
    [{ 'benchmark-tool': 'go' }, 'benchmark-file', 'is needed with benchmark-tool'],
    [
      { 'benchmark-file': 'out.txt' },
      'benchmark-tool',
      'is needed with benchmark-file: one of cargo, go,',
    ],
    [
      { 'benchmark-tool': 'gotest', 'benchmark-file': 'out.txt' },
      'benchmark-tool',
      '"gotest" is not a tool ci-stats reads',
    ],
    [{ 'timeout-seconds': '0' }, 'timeout-seconds', 'from 0.1 to 300'],
    [{ retries: '1.5' }, 'retries', 'an integer'],
    [{ retries: '11' }, 'retries', 'from 0 to 10'],
    [
      {
        'event-type': '',
        metrics: '{}',
        'chat-webhook-url': 'https://discord.com/api/webhooks/1/t',
      },
      'chat-webhook-url',
      'needs event-type',
    ],
  ])('%j fails naming %s', (override, input, text) => {
    const error = inputErrorOf(() => parse({ ...base, ...override }));
    expect(error.input).toBe(input);
    expect(error.message).toContain(`Input "${input}"`);
    expect(error.message).toContain(text);
  });
});
