import { resolve } from 'node:path';
import { UserError } from '../../errors.js';
import { readSavedPlan } from '../../plan/saved.js';
import { applyGraph, drawGraph, GRAPH_FORMATS, type GraphFormat } from '../../report/graph.js';
import type { Io } from '../io.js';
import { buildOptions, type CommonFlags } from '../../run/options.js';
import { makePlan } from '../../run/pipeline.js';

export interface GraphFlags extends CommonFlags {
  plan?: string;
}

function graphFormat(format = 'mermaid'): GraphFormat {
  if (!(GRAPH_FORMATS as readonly string[]).includes(format)) {
    throw new UserError(`--format must be ${GRAPH_FORMATS.join(' or ')}, not ${JSON.stringify(format)}`);
  }
  return format as GraphFormat;
}

/**
 * The apply order as a diagram: of the plan made now from DIR (as `plan` makes it, same flags), or of a saved plan
 * (checked as `show` and `apply --plan` check it; nothing sent, no token needed). Drawn whole: the Markdown plan's
 * size limit is for a pull-request comment, and here the diagram was asked for.
 */
export async function graphCommand(dir: string | undefined, flags: GraphFlags, io: Io): Promise<number> {
  const format = graphFormat(flags.format);
  if (flags.plan) {
    if (dir) throw new UserError(`give a directory or --plan ${flags.plan}, not both: a saved plan records its own`);
    io.out(drawGraph[format](applyGraph(readSavedPlan(resolve(io.cwd, flags.plan)))));
    return 0;
  }
  // --format names the diagram's format here, not an output format of plan's.
  const opts = buildOptions(dir, { ...flags, format: undefined }, io);
  const { shown, client } = await makePlan(opts, io);
  await client.close();
  io.out(drawGraph[format](applyGraph(shown)));
  return 0;
}
