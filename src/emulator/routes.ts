// The emulator's routing, from the kind table: which handler answers a method and path, with its parameters.
// Shared by the HTTP server and by `answer`, the same platform called in-process (the planner's scenario tests).
import { builtinKinds } from '../kinds/registry.js';
import type { KindDef, UpdateEndpoint } from '../kinds/types.js';
import { isObject, type JsonObject } from '../schema/values.js';
import { ApiFault, bad } from './fault.js';
import { toJson } from './json.js';
import { create, duplicate, list, patch, read, replace, type Handler } from './handlers.js';
import type { Store } from './store.js';

export interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  kind: KindDef;
  handler: Handler;
  write: boolean;
  /** the kind's create endpoint: its answer holds the resource made */
  creates: boolean;
}

function route(kind: KindDef, method: string, path: string, handler: Handler, creates = false): Route {
  const names: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, n: string) => {
    names.push(n);
    return n === 'key' ? '(.+?)' : '([^/]+)';
  });
  return { method, pattern: new RegExp(`^${source}$`), names, kind, handler, write: method !== 'GET', creates };
}

/** The handler of each update style: a new style in kinds/types.ts is a compile error here until it has one. */
const updates: Record<UpdateEndpoint['style'], Handler> = { patch, replace };

/** Every endpoint of the contract's table, from the kinds' default endpoints. */
export function routes(): Route[] {
  return builtinKinds.flatMap((k) => [
    route(k, 'GET', k.read.path, read),
    ...(k.list ? [route(k, 'GET', k.list.path, list)] : []),
    ...(k.create ? [route(k, k.create.method, k.create.path, create, true)] : []),
    ...(k.duplicate ? [route(k, k.duplicate.method, k.duplicate.path, duplicate, true)] : []),
    route(k, k.update.method, k.update.path, updates[k.update.style]),
  ]);
}

/** The route answering a method and path, and its decoded path parameters; a 404 fault when none does. */
export function findRoute(
  table: Route[],
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } {
  for (const route of table) {
    const match = route.method === method ? route.pattern.exec(pathname) : null;
    if (!match) continue;
    const params: Record<string, string> = {};
    route.names.forEach((n, i) => {
      try {
        params[n] = match[i + 1].split('/').map(decodeURIComponent).join('/');
      } catch {
        throw bad('malformed percent-encoding in the path');
      }
    });
    return { route, params };
  }
  throw new ApiFault('not_found', `no route for ${method} ${pathname}`);
}

/**
 * The platform in-process: what the emulator would answer a request, without HTTP, latency or faults. The answer
 * is a JSON round trip of the handler's result (the wire form a client sees), or the error's status and body.
 */
export function answer(
  store: Store,
  method: string,
  target: string,
  body: JsonObject = {},
): { status: number; body: JsonObject } {
  const url = new URL(target, 'http://emulator');
  try {
    const { route, params } = findRoute(routes(), method, url.pathname);
    const result = route.handler(store, { kind: route.kind, params, query: url.searchParams, body });
    const wire: unknown = JSON.parse(toJson(result));
    return { status: 200, body: isObject(wire) ? wire : {} };
  } catch (e) {
    if (!(e instanceof ApiFault)) throw e;
    return { status: e.status, body: e.body() as JsonObject };
  }
}
