/** The toolkit's version; scripts/build_npm.ts checks it matches package.json. */
export const VERSION = "0.1.0";
