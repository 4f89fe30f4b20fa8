import type { Runner } from '../../action/step.js';

/** A stand-in for @actions/core: records what the step tells the runner. */

export class StandIn implements Runner {
  readonly calls: [string, ...string[]][] = [];
  readonly outputs: Record<string, string> = {};
  readonly summaryParts: string[] = [];
  failed: string | undefined;

  constructor(private readonly inputs: Record<string, string>) {}

  getInput(name: string): string {
    return this.inputs[name] ?? '';
  }
  setSecret(secret: string): void {
    this.calls.push(['setSecret', secret]);
  }
  setOutput(name: string, value: string): void {
    this.calls.push(['setOutput', name, value]);
    this.outputs[name] = value;
  }
  setFailed(message: string): void {
    this.calls.push(['setFailed', message]);
    this.failed = message;
  }
  warning(message: string): void {
    this.calls.push(['warning', message]);
  }
  error(message: string): void {
    this.calls.push(['error', message]);
  }
  info(message: string): void {
    this.calls.push(['info', message]);
  }
  readonly summary: Runner['summary'] = {
    addHeading: (text) => {
      this.summaryParts.push(text);
      return this.summary;
    },
    addTable: (rows) => {
      this.summaryParts.push(JSON.stringify(rows));
      return this.summary;
    },
    addRaw: (text) => {
      this.summaryParts.push(text);
      return this.summary;
    },
    write: async () => undefined,
  };
}
