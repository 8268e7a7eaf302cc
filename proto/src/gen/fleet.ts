import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AgentClient as _fleetls_v1_AgentClient, AgentDefinition as _fleetls_v1_AgentDefinition } from './fleetls/v1/Agent.js';
import type { DiffDifference as _fleetls_v1_DiffDifference, DiffDifference__Output as _fleetls_v1_DiffDifference__Output } from './fleetls/v1/DiffDifference.js';
import type { DiffDirectoryRequest as _fleetls_v1_DiffDirectoryRequest, DiffDirectoryRequest__Output as _fleetls_v1_DiffDirectoryRequest__Output } from './fleetls/v1/DiffDirectoryRequest.js';
import type { DiffDirectoryResponse as _fleetls_v1_DiffDirectoryResponse, DiffDirectoryResponse__Output as _fleetls_v1_DiffDirectoryResponse__Output } from './fleetls/v1/DiffDirectoryResponse.js';
import type { DiffGroup as _fleetls_v1_DiffGroup, DiffGroup__Output as _fleetls_v1_DiffGroup__Output } from './fleetls/v1/DiffGroup.js';
import type { DiffValue as _fleetls_v1_DiffValue, DiffValue__Output as _fleetls_v1_DiffValue__Output } from './fleetls/v1/DiffValue.js';
import type { DiskUsageRequest as _fleetls_v1_DiskUsageRequest, DiskUsageRequest__Output as _fleetls_v1_DiskUsageRequest__Output } from './fleetls/v1/DiskUsageRequest.js';
import type { DiskUsageResponse as _fleetls_v1_DiskUsageResponse, DiskUsageResponse__Output as _fleetls_v1_DiskUsageResponse__Output } from './fleetls/v1/DiskUsageResponse.js';
import type { Entry as _fleetls_v1_Entry, Entry__Output as _fleetls_v1_Entry__Output } from './fleetls/v1/Entry.js';
import type { EntryError as _fleetls_v1_EntryError, EntryError__Output as _fleetls_v1_EntryError__Output } from './fleetls/v1/EntryError.js';
import type { Filter as _fleetls_v1_Filter, Filter__Output as _fleetls_v1_Filter__Output } from './fleetls/v1/Filter.js';
import type { FleetClient as _fleetls_v1_FleetClient, FleetDefinition as _fleetls_v1_FleetDefinition } from './fleetls/v1/Fleet.js';
import type { FleetStatRequest as _fleetls_v1_FleetStatRequest, FleetStatRequest__Output as _fleetls_v1_FleetStatRequest__Output } from './fleetls/v1/FleetStatRequest.js';
import type { FleetStatResponse as _fleetls_v1_FleetStatResponse, FleetStatResponse__Output as _fleetls_v1_FleetStatResponse__Output } from './fleetls/v1/FleetStatResponse.js';
import type { FleetWalkEvent as _fleetls_v1_FleetWalkEvent, FleetWalkEvent__Output as _fleetls_v1_FleetWalkEvent__Output } from './fleetls/v1/FleetWalkEvent.js';
import type { FleetWalkRequest as _fleetls_v1_FleetWalkRequest, FleetWalkRequest__Output as _fleetls_v1_FleetWalkRequest__Output } from './fleetls/v1/FleetWalkRequest.js';
import type { FleetWalkSummary as _fleetls_v1_FleetWalkSummary, FleetWalkSummary__Output as _fleetls_v1_FleetWalkSummary__Output } from './fleetls/v1/FleetWalkSummary.js';
import type { HostEntry as _fleetls_v1_HostEntry, HostEntry__Output as _fleetls_v1_HostEntry__Output } from './fleetls/v1/HostEntry.js';
import type { HostInfo as _fleetls_v1_HostInfo, HostInfo__Output as _fleetls_v1_HostInfo__Output } from './fleetls/v1/HostInfo.js';
import type { HostNote as _fleetls_v1_HostNote, HostNote__Output as _fleetls_v1_HostNote__Output } from './fleetls/v1/HostNote.js';
import type { HostRow as _fleetls_v1_HostRow, HostRow__Output as _fleetls_v1_HostRow__Output } from './fleetls/v1/HostRow.js';
import type { HostRows as _fleetls_v1_HostRows, HostRows__Output as _fleetls_v1_HostRows__Output } from './fleetls/v1/HostRows.js';
import type { HostStat as _fleetls_v1_HostStat, HostStat__Output as _fleetls_v1_HostStat__Output } from './fleetls/v1/HostStat.js';
import type { HostState as _fleetls_v1_HostState, HostState__Output as _fleetls_v1_HostState__Output } from './fleetls/v1/HostState.js';
import type { HostStatus as _fleetls_v1_HostStatus, HostStatus__Output as _fleetls_v1_HostStatus__Output } from './fleetls/v1/HostStatus.js';
import type { HostTruncation as _fleetls_v1_HostTruncation, HostTruncation__Output as _fleetls_v1_HostTruncation__Output } from './fleetls/v1/HostTruncation.js';
import type { IdMatch as _fleetls_v1_IdMatch, IdMatch__Output as _fleetls_v1_IdMatch__Output } from './fleetls/v1/IdMatch.js';
import type { Instant as _fleetls_v1_Instant, Instant__Output as _fleetls_v1_Instant__Output } from './fleetls/v1/Instant.js';
import type { Label as _fleetls_v1_Label, Label__Output as _fleetls_v1_Label__Output } from './fleetls/v1/Label.js';
import type { ListDirectoriesRequest as _fleetls_v1_ListDirectoriesRequest, ListDirectoriesRequest__Output as _fleetls_v1_ListDirectoriesRequest__Output } from './fleetls/v1/ListDirectoriesRequest.js';
import type { ListDirectoriesResponse as _fleetls_v1_ListDirectoriesResponse, ListDirectoriesResponse__Output as _fleetls_v1_ListDirectoriesResponse__Output } from './fleetls/v1/ListDirectoriesResponse.js';
import type { ListDirectoryRequest as _fleetls_v1_ListDirectoryRequest, ListDirectoryRequest__Output as _fleetls_v1_ListDirectoryRequest__Output } from './fleetls/v1/ListDirectoryRequest.js';
import type { ListDirectoryResponse as _fleetls_v1_ListDirectoryResponse, ListDirectoryResponse__Output as _fleetls_v1_ListDirectoryResponse__Output } from './fleetls/v1/ListDirectoryResponse.js';
import type { ListFilesRequest as _fleetls_v1_ListFilesRequest, ListFilesRequest__Output as _fleetls_v1_ListFilesRequest__Output } from './fleetls/v1/ListFilesRequest.js';
import type { ListFilesResponse as _fleetls_v1_ListFilesResponse, ListFilesResponse__Output as _fleetls_v1_ListFilesResponse__Output } from './fleetls/v1/ListFilesResponse.js';
import type { ListHostsRequest as _fleetls_v1_ListHostsRequest, ListHostsRequest__Output as _fleetls_v1_ListHostsRequest__Output } from './fleetls/v1/ListHostsRequest.js';
import type { ListHostsResponse as _fleetls_v1_ListHostsResponse, ListHostsResponse__Output as _fleetls_v1_ListHostsResponse__Output } from './fleetls/v1/ListHostsResponse.js';
import type { PermMatch as _fleetls_v1_PermMatch, PermMatch__Output as _fleetls_v1_PermMatch__Output } from './fleetls/v1/PermMatch.js';
import type { Row as _fleetls_v1_Row, Row__Output as _fleetls_v1_Row__Output } from './fleetls/v1/Row.js';
import type { ScanInfo as _fleetls_v1_ScanInfo, ScanInfo__Output as _fleetls_v1_ScanInfo__Output } from './fleetls/v1/ScanInfo.js';
import type { ScanStatusRequest as _fleetls_v1_ScanStatusRequest, ScanStatusRequest__Output as _fleetls_v1_ScanStatusRequest__Output } from './fleetls/v1/ScanStatusRequest.js';
import type { ScanStatusResponse as _fleetls_v1_ScanStatusResponse, ScanStatusResponse__Output as _fleetls_v1_ScanStatusResponse__Output } from './fleetls/v1/ScanStatusResponse.js';
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
      DiffDifference: MessageTypeDefinition<_fleetls_v1_DiffDifference, _fleetls_v1_DiffDifference__Output>
      DiffDirectoryRequest: MessageTypeDefinition<_fleetls_v1_DiffDirectoryRequest, _fleetls_v1_DiffDirectoryRequest__Output>
      DiffDirectoryResponse: MessageTypeDefinition<_fleetls_v1_DiffDirectoryResponse, _fleetls_v1_DiffDirectoryResponse__Output>
      DiffGroup: MessageTypeDefinition<_fleetls_v1_DiffGroup, _fleetls_v1_DiffGroup__Output>
      DiffValue: MessageTypeDefinition<_fleetls_v1_DiffValue, _fleetls_v1_DiffValue__Output>
      Direction: EnumTypeDefinition
      DiskUsageRequest: MessageTypeDefinition<_fleetls_v1_DiskUsageRequest, _fleetls_v1_DiskUsageRequest__Output>
      DiskUsageResponse: MessageTypeDefinition<_fleetls_v1_DiskUsageResponse, _fleetls_v1_DiskUsageResponse__Output>
      Entry: MessageTypeDefinition<_fleetls_v1_Entry, _fleetls_v1_Entry__Output>
      EntryError: MessageTypeDefinition<_fleetls_v1_EntryError, _fleetls_v1_EntryError__Output>
      EntryType: EnumTypeDefinition
      ErrorCode: EnumTypeDefinition
      Filter: MessageTypeDefinition<_fleetls_v1_Filter, _fleetls_v1_Filter__Output>
      Fleet: SubtypeConstructor<typeof grpc.Client, _fleetls_v1_FleetClient> & { service: _fleetls_v1_FleetDefinition }
      FleetStatRequest: MessageTypeDefinition<_fleetls_v1_FleetStatRequest, _fleetls_v1_FleetStatRequest__Output>
      FleetStatResponse: MessageTypeDefinition<_fleetls_v1_FleetStatResponse, _fleetls_v1_FleetStatResponse__Output>
      FleetWalkEvent: MessageTypeDefinition<_fleetls_v1_FleetWalkEvent, _fleetls_v1_FleetWalkEvent__Output>
      FleetWalkRequest: MessageTypeDefinition<_fleetls_v1_FleetWalkRequest, _fleetls_v1_FleetWalkRequest__Output>
      FleetWalkSummary: MessageTypeDefinition<_fleetls_v1_FleetWalkSummary, _fleetls_v1_FleetWalkSummary__Output>
      HostEntry: MessageTypeDefinition<_fleetls_v1_HostEntry, _fleetls_v1_HostEntry__Output>
      HostInfo: MessageTypeDefinition<_fleetls_v1_HostInfo, _fleetls_v1_HostInfo__Output>
      HostNote: MessageTypeDefinition<_fleetls_v1_HostNote, _fleetls_v1_HostNote__Output>
      HostRow: MessageTypeDefinition<_fleetls_v1_HostRow, _fleetls_v1_HostRow__Output>
      HostRows: MessageTypeDefinition<_fleetls_v1_HostRows, _fleetls_v1_HostRows__Output>
      HostStat: MessageTypeDefinition<_fleetls_v1_HostStat, _fleetls_v1_HostStat__Output>
      HostState: MessageTypeDefinition<_fleetls_v1_HostState, _fleetls_v1_HostState__Output>
      HostStatus: MessageTypeDefinition<_fleetls_v1_HostStatus, _fleetls_v1_HostStatus__Output>
      HostTruncation: MessageTypeDefinition<_fleetls_v1_HostTruncation, _fleetls_v1_HostTruncation__Output>
      IdMatch: MessageTypeDefinition<_fleetls_v1_IdMatch, _fleetls_v1_IdMatch__Output>
      Instant: MessageTypeDefinition<_fleetls_v1_Instant, _fleetls_v1_Instant__Output>
      Label: MessageTypeDefinition<_fleetls_v1_Label, _fleetls_v1_Label__Output>
      ListDirectoriesRequest: MessageTypeDefinition<_fleetls_v1_ListDirectoriesRequest, _fleetls_v1_ListDirectoriesRequest__Output>
      ListDirectoriesResponse: MessageTypeDefinition<_fleetls_v1_ListDirectoriesResponse, _fleetls_v1_ListDirectoriesResponse__Output>
      ListDirectoryRequest: MessageTypeDefinition<_fleetls_v1_ListDirectoryRequest, _fleetls_v1_ListDirectoryRequest__Output>
      ListDirectoryResponse: MessageTypeDefinition<_fleetls_v1_ListDirectoryResponse, _fleetls_v1_ListDirectoryResponse__Output>
      ListFilesRequest: MessageTypeDefinition<_fleetls_v1_ListFilesRequest, _fleetls_v1_ListFilesRequest__Output>
      ListFilesResponse: MessageTypeDefinition<_fleetls_v1_ListFilesResponse, _fleetls_v1_ListFilesResponse__Output>
      ListHostsRequest: MessageTypeDefinition<_fleetls_v1_ListHostsRequest, _fleetls_v1_ListHostsRequest__Output>
      ListHostsResponse: MessageTypeDefinition<_fleetls_v1_ListHostsResponse, _fleetls_v1_ListHostsResponse__Output>
      Order: EnumTypeDefinition
      PermKind: EnumTypeDefinition
      PermMatch: MessageTypeDefinition<_fleetls_v1_PermMatch, _fleetls_v1_PermMatch__Output>
      ResumeRow: EnumTypeDefinition
      Row: MessageTypeDefinition<_fleetls_v1_Row, _fleetls_v1_Row__Output>
      ScanInfo: MessageTypeDefinition<_fleetls_v1_ScanInfo, _fleetls_v1_ScanInfo__Output>
      ScanStatusRequest: MessageTypeDefinition<_fleetls_v1_ScanStatusRequest, _fleetls_v1_ScanStatusRequest__Output>
      ScanStatusResponse: MessageTypeDefinition<_fleetls_v1_ScanStatusResponse, _fleetls_v1_ScanStatusResponse__Output>
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

