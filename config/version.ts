/** The product's version and home, from package.json (inlined by the build) so they can never disagree. */
import pkg from '../package.json' with { type: 'json' };

export const PRODUCT_VERSION: string = pkg.version;
export const PROJECT_URL: string = pkg.homepage;
