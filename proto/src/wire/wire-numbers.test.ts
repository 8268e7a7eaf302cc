import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packageDefinition } from '../contract.js';
import { ENUM_VALUES, MESSAGE_FIELDS } from './wire-numbers.js';

type Def = { format: string; type: { field?: { name: string; number: number; type: string }[] } & EnumType };
type EnumType = { value?: { name: string; number: number }[] };

// The walk worker's encoder and the gateway's decoder take their numbers from these
// constants, not from the .proto: proto's build writes them from the .proto each time
// (`npm run generate`), and this test holds the generator to what proto-loader loads.
describe('wire-numbers (gen/wire-numbers.ts by name)', () => {
  const defs = Object.entries(packageDefinition() as unknown as Record<string, Def>);

  it('has every message of the agent contract with its fields, numbers and types as the .proto has them', () => {
    const loaded = Object.fromEntries(
      defs
        .filter(([, d]) => d.format === 'Protocol Buffer 3 DescriptorProto')
        .map(([name, d]) => [
          name,
          Object.fromEntries((d.type.field ?? []).map((f) => [f.name, { number: f.number, type: f.type }])),
        ]),
    );
    assert.deepEqual(MESSAGE_FIELDS, loaded);
  });

  it('has every enum of the agent contract with its values as the .proto has them', () => {
    const loaded = Object.fromEntries(
      defs
        .filter(([, d]) => d.format === 'Protocol Buffer 3 EnumDescriptorProto')
        .map(([name, d]) => [name, Object.fromEntries((d.type.value ?? []).map((v) => [v.name, v.number]))]),
    );
    assert.deepEqual(ENUM_VALUES, loaded);
  });
});
