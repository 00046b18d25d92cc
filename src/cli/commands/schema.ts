import { UserError } from '../../errors.js';
import { defaultRegistry } from '../../kinds/registry.js';
import { inlinedSchema } from '../../schema/resolve.js';
import type { Io } from '../io.js';

export function schemaCommand(kind: string | undefined, io: Io): number {
  if (!kind) {
    io.out(`${defaultRegistry.kinds.map((k) => `${k.kind}\tschemas/${k.schema}`).join('\n')}\n`);
    return 0;
  }
  const k = defaultRegistry.get(kind) ?? defaultRegistry.kinds.find((x) => x.kind.toLowerCase() === kind.toLowerCase());
  if (!k) throw new UserError(`unknown kind ${JSON.stringify(kind)} (one of: ${defaultRegistry.names().join(', ')})`);
  // Resolved inline: the printed schema stands alone, without common.schema.json beside it.
  io.out(`${JSON.stringify(inlinedSchema(k.schema), null, 2)}\n`);
  return 0;
}
