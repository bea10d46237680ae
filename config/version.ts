/** The product's version and home, read once from package.json so they can never disagree. */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
  homepage: string;
};

export const PRODUCT_VERSION: string = pkg.version;
export const PROJECT_URL: string = pkg.homepage;
