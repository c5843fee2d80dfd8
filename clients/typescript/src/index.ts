// The package's entry point: the wrapper, the WebSocket GameSession and its seat
// stores, trace context, the service and its envelopes. Each game's own messages are
// at "@ludotheque/client/gen/ludotheque/<kind>/v1/<kind>_pb"; the React binding at
// "@ludotheque/client/react".

export * from "./ludotheque.js";
export { CORS_SETTING, explainUnreachable } from "./reach.js";
export * from "./known.js";
export * from "./logs.js";
export * from "./session.js";
export * from "./seats.js";
export * from "./trace.js";
export * from "./gen/ludotheque/v1/game_pb.js";
export * from "./gen/ludotheque/v1/game_service_pb.js";
export * from "./gen/ludotheque/v1/choice_pb.js";
export * from "./gen/ludotheque/v1/game_kind_pb.js";
export * from "./gen/ludotheque/text/v1/description_pb.js";
export * from "./gen/ludotheque/text/v1/seat_field_pb.js";
export * from "./gen/ludotheque/text/v1/grid_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";
// protobuf-es's helpers for the messages above, so that a frontend bundles one copy.
export {
  ScalarType,
  clone,
  create,
  equals,
  fromJson,
  fromJsonString,
  getOption,
  toJson,
  toJsonString,
} from "@bufbuild/protobuf";
export type { DescEnum, DescField, DescMessage, DescOneof, JsonObject, JsonValue } from "@bufbuild/protobuf";
