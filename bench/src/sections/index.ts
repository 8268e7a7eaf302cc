// Every bench section, in the order a run measures them. A new section is one file in this
// directory exporting `name`, `limitMs` and `run(ctx)`, and one entry here.
import type { Section } from '../context.js';
import * as agentSsh from './agent-ssh.js';
import * as answerSize from './answer-size.js';
import * as beyond from './beyond.js';
import * as fanout from './fanout.js';
import * as footprint from './footprint.js';
import * as grpcClient from './grpc-client.js';
import * as hostile from './hostile.js';
import * as load from './load.js';
import * as mcp from './mcp.js';
import * as nats from './nats.js';
import * as paging from './paging.js';
import * as ssh from './ssh.js';
import * as startup from './startup.js';
import * as topn from './topn.js';
import * as walk from './walk.js';

export const SECTIONS: readonly Section[] = [
  walk,
  footprint,
  mcp,
  answerSize,
  paging,
  topn,
  fanout,
  grpcClient,
  startup,
  ssh,
  agentSsh,
  beyond,
  hostile,
  load,
  nats,
];
