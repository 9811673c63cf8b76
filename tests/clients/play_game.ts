// The same shapes as play_game.py, through the TypeScript types openapi-typescript generates
// from the schema (`make clients` writes them to clients/typescript/domeng.ts). Compiled with
// `tsc --strict --noEmit` by `make clients-check` (part of `make test`): it fails if a body,
// a field or an enum the table uses is missing, mistyped, or left as `any`/`unknown`.

import type { components, operations, paths } from "../../clients/typescript/domeng";

type Schemas = components["schemas"];
type GameState = Schemas["GameState"];
type EventResult = Schemas["EventResult"];
type CorrectionResult = Schemas["CorrectionResult"];
type Problem = Schemas["Problem"];
type Outcome = Schemas["Outcome"];
type Transfer = Schemas["Transfer"];
type NamedOutcome = Schemas["NamedOutcome"];

// -- no loose type anywhere: every component is free of `any` and `unknown`, deeply --------
type IsAny<T> = 0 extends 1 & T ? true : false;
type IsUnknown<T> = IsAny<T> extends true ? false : unknown extends T ? true : false;
// A refused event's payload is what was sent, malformed or not: the one free-form body.
type AsSent = Schemas["RefusedPayload"];
type IsAsSent<T> = [T] extends [AsSent] ? ([AsSent] extends [T] ? true : false) : false;
type Loose<T> = IsAny<T> extends true
  ? true
  : IsUnknown<T> extends true
    ? true
    : T extends string | number | boolean | null | undefined
      ? false
      : T extends readonly (infer E)[]
        ? Loose<E>
        : T extends object
          ? IsAsSent<T> extends true
            ? false
            : true extends { [K in keyof T]-?: Loose<T[K]> }[keyof T]
              ? true
              : false
          : false;
type LooseComponents = {
  [K in keyof Schemas as Loose<Schemas[K]> extends true ? K : never]: Schemas[K];
};
const noLooseComponent: keyof LooseComponents extends never ? "typed" : keyof LooseComponents =
  "typed";

// The bodies of the operations the game uses are those components, not free-form objects.
type Body<Op extends keyof operations, Status extends number, Media extends string> =
  operations[Op]["responses"] extends Record<Status, { content: Record<Media, infer B> }>
    ? B
    : never;
type Json = "application/json";
type ProblemJson = "application/problem+json";
const created: Body<"games_create", 201, Json>["state"] extends GameState ? true : never = true;
const moved: Body<"games_moves_create", 201, Json> extends EventResult ? true : never = true;
const refused: Body<"games_moves_create", 422, ProblemJson> extends Problem ? true : never = true;
const stale: Body<"games_moves_create", 412, ProblemJson> extends Problem ? true : never = true;
const busy: Body<"games_moves_create", 503, ProblemJson> extends Problem ? true : never = true;
const tooLarge: Body<"games_moves_create", 413, ProblemJson> extends Problem ? true : never = true;
const undone: Body<"games_undo", 200, Json> extends CorrectionResult ? true : never = true;
const amended: Body<"games_events_amend", 200, Json> extends CorrectionResult ? true : never =
  true;
const trail: Body<"games_events_list", 200, Json> extends Schemas["AuditTrail"] ? true : never =
  true;
const sitting: Body<"games_sessions_start", 201, Json> extends Schemas["Session"] ? true : never =
  true;
const result: Body<"games_result", 200, Json> extends Schemas["Result"] ? true : never = true;
const scored: Body<"records_score", 200, Json> extends Schemas["Result"] ? true : never = true;

// -- requests: what a phone sends ----------------------------------------------------------
type MoveBody = paths["/api/v1/games/{game_id}/moves/"]["post"]["requestBody"] extends
  | { content: { "application/json": infer B } }
  | undefined
  ? B
  : never;
type MoveHeaders = NonNullable<operations["games_moves_create"]["parameters"]["header"]>;

const lead: MoveBody = { seat: 2, tile: "6-6" };
const onAnEnd: MoveBody = { seat: 0, tile: "1-6", on: 1 };
const pass: MoveBody = { seat: 4, pass: true };
const hand: Schemas["Hand"] = { seat: 3, tiles: ["0-0", "1-3", "2-5", "4-4", "5-6"] };
const reveal: Schemas["Reveal"] = { seat: 4, pips: 29 };
const amend: Schemas["Amend"] = { seat: 1, tile: "3-6", reason: "it was a play" };
const headers = (version: number, key: string): MoveHeaders => ({
  "Idempotency-Key": key,
  "If-Match": `"${version}"`,
});

// -- answers: what a phone reads --------------------------------------------------------
/** A stale write's problem carries the state to catch up from (409/412). */
function catchUp(problem: Problem, current: GameState): GameState {
  return problem.state ?? current;
}

/** A refusal as the table shows it: its code and rule (e.g. `not_your_turn`, R8). */
function refusal(problem: Problem): string {
  const where = problem.round == null ? "" : ` round ${problem.round}, move ${problem.move ?? "-"}`;
  const fields = (problem.errors ?? []).map((e) => `${e.field ?? "body"}: ${e.code}`).join("; ");
  return `${problem.status} ${problem.code} ${problem.rule ?? ""}${where} ${fields}`.trim();
}

function word(name: NamedOutcome): string {
  switch (name) {
    case "PASS":
    case "PASSEBUNGE":
    case "MAPPAKULING":
    case "FIRST CAPPU":
    case "CEKI":
    case "POLLO":
    case "MANGUNO":
    case "MATTIKKENG":
    case "CUCUQ":
    case "CAMAT":
      return `${name}!`;
    default: {
      const unheard: never = name;
      return unheard;
    }
  }
}

function source(transfer: Transfer): string {
  return transfer.from === "table" ? "the table" : `seat ${transfer.from + 0}`;
}

function stones(transfers: Transfer[]): string {
  return transfers
    .map((t) => `${t.stones} from ${source(t)} to seat ${t.to} (${t.reason}, move ${t.move ?? "end"})`)
    .join(", ");
}

function ending(outcome: Outcome): string {
  const how =
    outcome.ending === null
      ? `voided (${outcome.void?.reason ?? ""})`
      : outcome.ending === "cappu"
        ? `FIRST CAPPU seat ${outcome.first_cappu}`
        : "blocked";
  const finish: "plain" | "ceki" | "pollo" | "-" = outcome.finish ?? "-";
  const pips = outcome.remaining_pips?.join(" ") ?? "";
  return `Round ${outcome.number} ${how} ${finish} ${outcome.named.map(word).join(", ")} ${pips}`;
}

function table(state: GameState): string {
  const round = state.round;
  const ends = round.ends ? `${round.ends[0]}|${round.ends[1]}` : "no chain yet";
  const seats = state.seats.map(
    (s) => `${s.name} ${s.stones}${s.is_camat ? " CAMAT" : ""} ${s.hand?.join(" ") ?? ""}`,
  );
  const playable = Object.entries(round.playable).map(([end, tiles]) => `${end}: ${tiles.length}`);
  const previous = round.previous ? ending(round.previous) : "";
  const last = state.last_events.map((e) => `${e.kind} ${e.seat} ${e.named.map(word).join(" ")}`);
  return [
    `v${state.version} ${state.status} sitting ${state.session ?? "-"} table ${state.table}`,
    `round ${round.number} ${round.status} turn ${state.turn ?? "-"} ends ${ends}`,
    ...seats,
    ...playable,
    previous,
    ...last,
  ].join("\n");
}

function afterMove(answer: EventResult): [number, string] {
  const named = answer.effects.named.map(word).join(" ");
  const event = answer.event;
  const what = event.pass ? "pass" : (event.tile ?? event.tiles?.join(" ") ?? `${event.pips}`);
  const when: string = event.created_at ?? "now";
  return [answer.state.version, `${event.position} ${what} ${named} ${stones(answer.effects.transfers)} ${when}`];
}

function afterCorrection(answer: CorrectionResult): string {
  const c = answer.correction;
  if (c === null) return "nothing changed"; // a correction that changed nothing stores nothing
  const by = `${c.kind} by ${c.entered_by} (${c.reason}) at ${c.created_at}`;
  return `${by}: ${c.replaced.map((e) => e.position).join(",")} → ${c.replacement?.position ?? "-"}`;
}

function audit(trail: Schemas["AuditTrail"]): string[] {
  return [
    ...trail.events.map((e) => `${e.position} ${e.kind} ${e.payload.seat} ${e.revoked_by ?? "live"}`),
    ...trail.corrections.map((c) => `${c.id} ${c.kind} ${c.replacement_position ?? "-"}`),
    ...trail.refused.map((r) => `${r.code} ${r.rule ?? ""} ${r.detail ?? "(hidden)"}`),
  ];
}

function standings(result: Schemas["Result"]): string {
  const last = result.rounds[result.rounds.length - 1];
  return last === undefined
    ? "no round"
    : `${result.format} ${last.after.stones.join(" ")} table ${last.after.table} CAMAT ${last.after.camat ?? "-"}`;
}

export const checks = {
  noLooseComponent,
  created,
  moved,
  refused,
  stale,
  busy,
  tooLarge,
  undone,
  amended,
  trail,
  sitting,
  result,
  scored,
  requests: [lead, onAnEnd, pass, hand, reveal, amend],
  headers,
  catchUp,
  refusal,
  table,
  afterMove,
  afterCorrection,
  audit,
  standings,
};
