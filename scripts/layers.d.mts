// Types of layers.mjs, for the test that reads it.
export declare const layers: string[][];
export declare const layerOf: Map<string, number>;
export declare function forbiddenFrom(folder: string): string[];
