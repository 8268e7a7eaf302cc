// Flag parsers shared by the CLI's global flags and the tools' own subcommands.
import { InvalidArgumentError } from 'commander';

/** An integer flag; commander's InvalidArgumentError makes a bad one exit 2 like ours. */
export function intFlag(name: string, min = 0, max = Number.POSITIVE_INFINITY) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      const bounds = max < Number.POSITIVE_INFINITY ? ` from ${min} to ${max}` : min > 0 ? ` ≥ ${min}` : '';
      throw new InvalidArgumentError(`${name} expects an integer${bounds}, got '${v}'`);
    }
    return Number(v);
  };
}
