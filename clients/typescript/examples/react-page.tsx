import { StrictMode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { Ludotheque, storageSeats } from "@ludotheque/client";
import { useGameSession } from "@ludotheque/client/react";

const baseUrl = "http://localhost:8080"; // the server; this page's origin in its --cors-origins
const lobby = new Ludotheque({ baseUrl });
const seats = storageSeats(localStorage); // the seats this browser holds: a reload plays on

function Game({ gameId }: { gameId: string }) {
  const [game, session] = useGameSession({ baseUrl, gameId, seatStore: seats, presence: true });
  if (game.status === "closed" && game.error) return <p role="alert">{game.error.message}</p>;
  const invite = `${location.origin}${location.pathname}#join=${game.joinCode}`;
  return (
    <main>
      {game.joinCode && <p>Send this link to a friend: <a href={invite}>{invite}</a></p>}
      <ul aria-label="Players">
        {game.seats.map((seat) => (
          <li key={seat.index}>
            {seat.seat.open ? "(a free seat)" : seat.name}
            {seat.you && " (you)"} · {seat.online ? "here" : "away"}
            {seat.toAct && " · to play"}
          </li>
        ))}
      </ul>
      {game.outcome && <p role="status">{game.outcome.summary}</p>}
      {game.lastResult?.error && <p role="alert">{game.lastResult.error.message}</p>}
      <div aria-label="Your moves">
        {game.legalCommands.map((command, index) => (
          <button key={index} disabled={game.pending.length > 0} onClick={() => void session.play(command).catch(() => {})}>
            {command.description?.text}
          </button>
        ))}
      </div>
      <ol aria-label="What happened">
        {game.events.map((event) => (
          <li key={String(event.version)}>{event.description?.text}</li>
        ))}
      </ol>
    </main>
  );
}

function Start({ code }: { code: string }) {
  const [name, setName] = useState("");
  const [problem, setProblem] = useState("");
  async function start(): Promise<void> {
    if (code) {
      const joined = await lobby.joinGame(code, name); // takes the free seat: its token
      seats.set(joined.game!.gameId, joined.seatToken);
      location.hash = `game=${joined.game!.gameId}`;
    } else {
      const created = await lobby.createGame("mooki", [{ name }, { open: true }]);
      seats.set(created.gameId, created.seatTokens[0]!);
      location.hash = `game=${created.gameId}`;
    }
  }
  return (
    <form onSubmit={(event) => (event.preventDefault(), void start().catch((error: Error) => setProblem(error.message)))}>
      <label>
        Your name <input value={name} onChange={(event) => setName(event.target.value)} required />
      </label>
      <button>{code ? "Join the game" : "New game of Mooki Island"}</button>
      {problem && <p role="alert">{problem}</p>}
    </form>
  );
}

function App() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = (): void => setHash(location.hash);
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  const [key, value = ""] = hash.slice(1).split("=");
  return key === "game" ? <Game key={value} gameId={value} /> : <Start code={key === "join" ? value : ""} />;
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
