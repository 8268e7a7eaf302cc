// Flag parsers shared by the CLI's global flags and the tools' own subcommands.
import { InvalidArgumentError } from 'commander';

/** An integer flag; commander's InvalidArgumentError makes a bad one exit 2 like ours. */
export function intFlag(name: string, min = 0) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min) {
      throw new InvalidArgumentError(`${name} expects an integer${min > 0 ? ` ≥ ${min}` : ''}, got '${v}'`);
    }
    return Number(v);
  };
}
