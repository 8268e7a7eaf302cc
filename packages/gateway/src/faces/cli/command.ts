// The CLI's commander Command: an unknown flag is answered with the nearest known one, by
// the rule the MCP face uses for an unknown argument (tools/nearest-name.ts): spelling
// variants (--maxDepth, --MAX_DEPTH, --maxdepth) first, then a near typo.
import { Command } from 'commander';
import { nearestName } from '../../tools/shared/nearest-name.js';

export class FleetlsCommand extends Command {
  override createCommand(name?: string): FleetlsCommand {
    return new FleetlsCommand(name);
  }

  // commander calls it for every unknown flag (public in its JavaScript, absent from its types).
  unknownOption(flag: string): never {
    // This command's flags and the global ones above it, as commander's own suggestion looks.
    const known: string[] = [];
    for (let c: Command | null = this; c; c = c.parent) {
      for (const o of c.options) if (o.long && !o.hidden) known.push(o.long.slice(2));
    }
    const name = flag.replace(/^-+/, '').replace(/=.*$/, '');
    const near = flag.startsWith('-') ? nearestName(name, known) : undefined;
    const hint = near === undefined ? '' : `\n(Did you mean --${near}?)`;
    this.error(`error: unknown option '${flag}'${hint}`, { code: 'commander.unknownOption', exitCode: 1 });
  }
}
