/** A problem with the step's configuration; it always fails the step, naming the input. */
export class InputError extends Error {
  constructor(
    readonly input: string,
    /** What is wrong, without the input's name (each entry names inputs its own way). */
    readonly detail: string,
  ) {
    super(`Input "${input}": ${detail}`);
    this.name = 'InputError';
  }
}
