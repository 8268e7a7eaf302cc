import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AgentClient as _fleetls_v1_AgentClient, AgentDefinition as _fleetls_v1_AgentDefinition } from './fleetls/v1/Agent.js';
import type { Entry as _fleetls_v1_Entry, Entry__Output as _fleetls_v1_Entry__Output } from './fleetls/v1/Entry.js';
import type { EntryError as _fleetls_v1_EntryError, EntryError__Output as _fleetls_v1_EntryError__Output } from './fleetls/v1/EntryError.js';
import type { Filter as _fleetls_v1_Filter, Filter__Output as _fleetls_v1_Filter__Output } from './fleetls/v1/Filter.js';
import type { IdMatch as _fleetls_v1_IdMatch, IdMatch__Output as _fleetls_v1_IdMatch__Output } from './fleetls/v1/IdMatch.js';
import type { Instant as _fleetls_v1_Instant, Instant__Output as _fleetls_v1_Instant__Output } from './fleetls/v1/Instant.js';
import type { PermMatch as _fleetls_v1_PermMatch, PermMatch__Output as _fleetls_v1_PermMatch__Output } from './fleetls/v1/PermMatch.js';
import type { Row as _fleetls_v1_Row, Row__Output as _fleetls_v1_Row__Output } from './fleetls/v1/Row.js';
import type { SizeBound as _fleetls_v1_SizeBound, SizeBound__Output as _fleetls_v1_SizeBound__Output } from './fleetls/v1/SizeBound.js';
import type { StatRequest as _fleetls_v1_StatRequest, StatRequest__Output as _fleetls_v1_StatRequest__Output } from './fleetls/v1/StatRequest.js';
import type { StatResponse as _fleetls_v1_StatResponse, StatResponse__Output as _fleetls_v1_StatResponse__Output } from './fleetls/v1/StatResponse.js';
import type { Summary as _fleetls_v1_Summary, Summary__Output as _fleetls_v1_Summary__Output } from './fleetls/v1/Summary.js';
import type { Truncation as _fleetls_v1_Truncation, Truncation__Output as _fleetls_v1_Truncation__Output } from './fleetls/v1/Truncation.js';
import type { WalkRequest as _fleetls_v1_WalkRequest, WalkRequest__Output as _fleetls_v1_WalkRequest__Output } from './fleetls/v1/WalkRequest.js';
import type { WalkResponse as _fleetls_v1_WalkResponse, WalkResponse__Output as _fleetls_v1_WalkResponse__Output } from './fleetls/v1/WalkResponse.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fleetls: {
    v1: {
      Agent: SubtypeConstructor<typeof grpc.Client, _fleetls_v1_AgentClient> & { service: _fleetls_v1_AgentDefinition }
      Direction: EnumTypeDefinition
      Entry: MessageTypeDefinition<_fleetls_v1_Entry, _fleetls_v1_Entry__Output>
      EntryError: MessageTypeDefinition<_fleetls_v1_EntryError, _fleetls_v1_EntryError__Output>
      EntryType: EnumTypeDefinition
      ErrorCode: EnumTypeDefinition
      Filter: MessageTypeDefinition<_fleetls_v1_Filter, _fleetls_v1_Filter__Output>
      IdMatch: MessageTypeDefinition<_fleetls_v1_IdMatch, _fleetls_v1_IdMatch__Output>
      Instant: MessageTypeDefinition<_fleetls_v1_Instant, _fleetls_v1_Instant__Output>
      Order: EnumTypeDefinition
      PermKind: EnumTypeDefinition
      PermMatch: MessageTypeDefinition<_fleetls_v1_PermMatch, _fleetls_v1_PermMatch__Output>
      ResumeRow: EnumTypeDefinition
      Row: MessageTypeDefinition<_fleetls_v1_Row, _fleetls_v1_Row__Output>
      Shape: EnumTypeDefinition
      SizeBound: MessageTypeDefinition<_fleetls_v1_SizeBound, _fleetls_v1_SizeBound__Output>
      StatRequest: MessageTypeDefinition<_fleetls_v1_StatRequest, _fleetls_v1_StatRequest__Output>
      StatResponse: MessageTypeDefinition<_fleetls_v1_StatResponse, _fleetls_v1_StatResponse__Output>
      Summary: MessageTypeDefinition<_fleetls_v1_Summary, _fleetls_v1_Summary__Output>
      Truncation: MessageTypeDefinition<_fleetls_v1_Truncation, _fleetls_v1_Truncation__Output>
      TruncationReason: EnumTypeDefinition
      WalkRequest: MessageTypeDefinition<_fleetls_v1_WalkRequest, _fleetls_v1_WalkRequest__Output>
      WalkResponse: MessageTypeDefinition<_fleetls_v1_WalkResponse, _fleetls_v1_WalkResponse__Output>
    }
  }
}

