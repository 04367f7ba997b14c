/** The crypto engine: signature algorithms and the encodings signed formats are built from. */
export * from './algorithms.ts';
export * from './encoding.ts';
