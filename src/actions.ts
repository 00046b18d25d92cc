// The plan's actions as rules and change windows name them (types.ts has their type): both must agree on which
// changes write to the platform, or a rule and a window would guard different things.
import type { Action } from './types.js';

/** Every action of a plan. */
export const ACTIONS: readonly Action[] = ['create', 'update', 'move', 'release', 'replace', 'restore', 'noop'];

/**
 * The changes that send fields to the platform: a create and a replace (its new resource) send every field, an
 * update and a restore (a released resource taken back) a PATCH of those that differ. A release writes only the state.
 */
export const WRITE_ACTIONS: readonly Action[] = ['create', 'update', 'replace', 'restore'];
