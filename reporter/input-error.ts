/** A problem with the step's configuration; it always fails the step, naming the input. */
export class InputError extends Error {
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(`Input "${input}": ${message}`);
    this.name = 'InputError';
  }
}
