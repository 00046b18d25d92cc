// The part of jsdom the tests use (a window for Mermaid's parser, test/helpers/diagrams.ts); it ships no types.
declare module 'jsdom' {
  export class JSDOM {
    constructor(html?: string);
    readonly window: Window & typeof globalThis;
  }
}
