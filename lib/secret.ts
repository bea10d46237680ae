/**
 * A secret (a password, a token, a cookie's value): named in the config only by where it comes
 * from — an environment variable or a file — and read once, when the config is loaded. It can be
 * printed, logged, serialized or inspected without showing its value: only `reveal()`, called
 * where a request is made, gives it.
 */
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';

export class Secret {
  #value: string | undefined;

  private constructor(
    /** Where it comes from, as the config says it: `env DOCS_PASSWORD`, `file /run/secrets/x`. */
    readonly source: string,
    private readonly from: { readonly env: string } | { readonly file: string },
  ) {}

  static fromEnv(name: string): Secret {
    return new Secret(`env ${name}`, { env: name });
  }

  static fromFile(path: string): Secret {
    return new Secret(`file ${path}`, { file: path });
  }

  /** A secret that is its value already (tests, and a form's fields read by the config). */
  static of(value: string, source: string): Secret {
    const s = new Secret(source, { env: '' });
    s.#value = value;
    return s;
  }

  /** Reads the value; throws an Error naming the source (never the value) when it cannot. */
  resolve(env: Readonly<Record<string, string | undefined>>): void {
    if (this.#value !== undefined) return;
    if ('env' in this.from) {
      const v = env[this.from.env];
      if (v === undefined || v === '') throw new Error(`the environment variable ${this.from.env} is not set`);
      this.#value = v;
    } else {
      let v: string;
      try {
        v = readFileSync(this.from.file, 'utf8');
      } catch (e) {
        throw new Error(`cannot read ${this.from.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      // (A file's trailing newline is not part of the secret.)
      v = v.replace(/\r?\n$/, '');
      if (!v) throw new Error(`${this.from.file} is empty`);
      this.#value = v;
    }
  }

  reveal(): string {
    if (this.#value === undefined) throw new Error(`secret from ${this.source} was never read`);
    return this.#value;
  }

  toString(): string {
    return `[secret from ${this.source}]`;
  }

  toJSON(): string {
    return this.toString();
  }

  [inspect.custom](): string {
    return this.toString();
  }
}
