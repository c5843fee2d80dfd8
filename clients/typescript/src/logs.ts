// Game logs in the format `ludotheque export` writes (`ludotheque-log/1`, JSON Lines):
// line 1 the header, each later line one event, in the proto3 JSON mapping. What a
// page needs to open a log file dropped onto it and to save one.

import { create, fromJsonString, toJsonString } from "@bufbuild/protobuf";

import { EventSchema, GameLogHeaderSchema, GameLogSchema, type GameLog } from "./gen/ludotheque/v1/game_pb.js";

/** The format a log's header names. */
export const LOG_FORMAT = "ludotheque-log/1";

/** A log that cannot be read: `line` (from 1) and why. */
export class LogFormatError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = "LogFormatError";
  }
}

/** Reads a JSON Lines log; throws a LogFormatError naming the first line that is not right. */
export function parseLog(text: string): GameLog {
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 0 || lines[0].trim() === "") throw new LogFormatError(1, "the header is missing");
  const log = create(GameLogSchema);
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    if (line.trim() === "") throw new LogFormatError(number, "an empty line");
    try {
      if (number === 1) log.header = fromJsonString(GameLogHeaderSchema, line);
      else log.events.push(fromJsonString(EventSchema, line));
    } catch (error) {
      const what = number === 1 ? "the header" : "an event";
      throw new LogFormatError(number, `not ${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (log.header?.format !== LOG_FORMAT) {
    throw new LogFormatError(1, `format ${JSON.stringify(log.header?.format ?? "")} is not ${LOG_FORMAT}`);
  }
  return log;
}

/** The log as JSON Lines, as `ludotheque export` writes it. */
export function toJsonLines(log: GameLog): string {
  const header = log.header ?? create(GameLogHeaderSchema);
  return [toJsonString(GameLogHeaderSchema, header), ...log.events.map((e) => toJsonString(EventSchema, e))]
    .map((line) => `${line}\n`)
    .join("");
}
