// The package's entry point: the wrapper, the service and its envelopes. Each game's
// own messages are at "@ludotheque/client/gen/ludotheque/<kind>/v1/<kind>_pb".

export * from "./ludotheque.js";
export * from "./gen/ludotheque/v1/game_pb.js";
export * from "./gen/ludotheque/v1/game_service_pb.js";
export * from "./gen/ludotheque/v1/choice_pb.js";
export * from "./gen/ludotheque/v1/game_kind_pb.js";
export * from "./gen/ludotheque/text/v1/description_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";
