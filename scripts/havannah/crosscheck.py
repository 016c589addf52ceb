#!/usr/bin/env python3
"""Cross-checks the engine's Havannah against OpenSpiel's, move by move.

Plays games with OpenSpiel's `havannah` (random games, and "ring-heavy"
games whose moves mostly go next to stones already on the board), replays
each one with the engine (`engine/examples/havannah_replay.rs`) and compares,
after every move, the set of legal moves and the result (and, for every
tenth game, the own/opponent stone planes against OpenSpiel's observation
tensor). Prints the games and moves compared and the mismatches, then a
random-playout speed measurement of both (random games per CPU second).
Exits non-zero on any mismatch.
"""

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter

import numpy as np
import pyspiel

# Neighbour steps in OpenSpiel's coordinates: (x±1, y), (x, y±1),
# (x+1, y+1), (x−1, y−1).
STEPS = [(-1, -1), (0, -1), (1, 0), (1, 1), (0, 1), (-1, 0)]


class Geometry:
    """Cells and neighbours of a board of base `base`, by action id."""

    def __init__(self, base):
        self.diameter = 2 * base - 1
        d = self.diameter
        # Six entries per cell, in the cyclic order of STEPS; None off the board.
        self.around = {}
        for y in range(d):
            for x in range(d):
                if abs(x - y) < base:
                    self.around[x + y * d] = [
                        (x + dx) + (y + dy) * d
                        if 0 <= x + dx < d and 0 <= y + dy < d and abs(x + dx - y - dy) < base
                        else None
                        for dx, dy in STEPS
                    ]
        self.neighbours = {a: [n for n in around if n is not None] for a, around in self.around.items()}

    def name(self, action):
        return f"{chr(ord('a') + action % self.diameter)}{action // self.diameter + 1}"


def random_policy(legal, owner, player, geometry, rng):
    return rng.choice(legal)


def own_arcs(cell, owner, player, geometry):
    """Number of separate runs of own stones around `cell`."""
    own = [n is not None and owner.get(n) == player for n in geometry.around[cell]]
    return sum(own[i] and not own[i - 1] for i in range(6)) or int(all(own))


def ring_heavy_policy(legal, owner, player, geometry, rng):
    """Mostly cells joining two separate arcs of own stones (which may close
    a ring around other cells) or touching two or more own stones (which
    closes rings around own stones), else cells next to any stone, rarely
    any cell."""
    roll = rng.random()
    if roll < 0.45:
        candidates = [a for a in legal if own_arcs(a, owner, player, geometry) >= 2]
        if candidates:
            return rng.choice(candidates)
    if roll < 0.7:
        candidates = [
            a for a in legal
            if sum(owner.get(n) == player for n in geometry.neighbours[a]) >= 2
        ]
        if candidates:
            return rng.choice(candidates)
    if roll < 0.95:
        candidates = [a for a in legal if any(n in owner for n in geometry.neighbours[a])]
        if candidates:
            return rng.choice(candidates)
    return rng.choice(legal)


def ring_closing_policy(legal, owner, player, geometry, rng):
    """Chains of own stones that close around empty and opponent cells:
    mostly cells joining two separate arcs of few own stones, else cells
    extending a chain (one own neighbour), rarely any cell."""
    roll = rng.random()

    def own_count(a):
        return sum(owner.get(n) == player for n in geometry.neighbours[a])

    if roll < 0.5:
        candidates = [a for a in legal if own_arcs(a, owner, player, geometry) >= 2 and own_count(a) <= 3]
        if candidates:
            return rng.choice(candidates)
    if roll < 0.9:
        candidates = [a for a in legal if own_count(a) == 1]
        if candidates:
            return rng.choice(candidates)
    return rng.choice(legal)


def result_text(state):
    if not state.is_terminal():
        return "-"
    return {1.0: "1", -1.0: "-1", 0.0: "0"}[state.returns()[0]]


def bits(ids):
    mask = 0
    for a in ids:
        mask |= 1 << int(a)
    return mask


def play_game(game, geometry, policy, rng, swap_rate, observe):
    """One game with OpenSpiel: its actions and, per position, the legal set,
    the result and (if `observe`) the own/opponent stone sets."""
    state = game.new_initial_state()
    owner = {}
    actions, records = [], []
    area = geometry.diameter ** 2
    while True:
        legal = state.legal_actions()
        record = [bits(legal), result_text(state)]
        if observe:
            planes = np.asarray(state.observation_tensor(len(actions) % 2)).reshape(3, area)
            record += [bits(np.flatnonzero(planes[0])), bits(np.flatnonzero(planes[1]))]
        records.append(record)
        if state.is_terminal():
            return actions, records
        player = state.current_player()
        swap = [a for a in legal if a in owner]
        if swap and rng.random() < swap_rate:
            action = swap[0]
        else:
            action = policy(legal, owner, player, geometry, rng)
        state.apply_action(action)
        owner[action] = player
        actions.append(action)


def replay(binary, parameters, games):
    """Replays `games` (lists of actions, with an observe flag) with the
    engine; returns its output lines per game."""
    lines = [f"game {parameters}"]
    for actions, observe in games:
        lines.append(("observe " if observe else "play ") + " ".join(map(str, actions)))
    with tempfile.TemporaryFile("w+") as source:
        source.write("\n".join(lines) + "\n")
        source.seek(0)
        done = subprocess.run([binary], stdin=source, capture_output=True, text=True, check=True)
    out = iter(done.stdout.splitlines())
    per_game = []
    for _ in games:
        block = []
        for line in out:
            block.append(line)
            if line.startswith(("end ", "illegal ")):
                break
        per_game.append(block)
    return per_game


def compare(label, geometry, actions, records, ours, mismatches, shown):
    """Compares one game; returns the number of positions compared and the
    engine's end line."""
    history = " ".join(geometry.name(a) for a in actions)
    end = ours[-1] if ours else "missing"
    for ply, expected in enumerate(records):
        line = ours[ply] if ply < len(ours) else "missing"
        if line.startswith(("illegal", "end", "missing")):
            problem = f"engine refused the game at ply {ply}: {line}"
        else:
            fields = line.split()
            got = [int(fields[0], 16), fields[1]] + [int(f, 16) for f in fields[2:]]
            if got == expected:
                continue
            problem = f"at ply {ply}: "
            names = ["legal moves", "result", "own stones", "opponent stones"]
            for name, theirs, mine in zip(names, expected, got):
                if theirs == mine:
                    continue
                if isinstance(theirs, int):
                    only_theirs = [geometry.name(a) for a in range(geometry.diameter ** 2) if theirs >> a & 1 and not mine >> a & 1]
                    only_mine = [geometry.name(a) for a in range(geometry.diameter ** 2) if mine >> a & 1 and not theirs >> a & 1]
                    problem += f"{name}: only OpenSpiel {only_theirs}, only engine {only_mine}; "
                else:
                    problem += f"{name}: OpenSpiel {theirs}, engine {mine}; "
        mismatches[label] += 1
        if shown[0] < 10:
            shown[0] += 1
            print(f"MISMATCH [{label}] {problem}\n  moves: {history[:2000]}", file=sys.stderr)
        return ply, end
    if len(ours) != len(records) + 1 or not ours[-1].startswith("end "):
        mismatches[label] += 1
        print(f"MISMATCH [{label}] engine output has {len(ours)} lines for {len(records)} positions", file=sys.stderr)
    return len(records), end


def run_config(binary, base, swap, kind, count, seed, mismatches, shown, totals):
    parameters = f"base={base} swap={int(swap)}"
    game = pyspiel.load_game(f"havannah(board_size={base}{',swap=True' if swap else ''})")
    geometry = Geometry(base)
    policies = {"random": [random_policy], "ring-heavy": [ring_heavy_policy, ring_closing_policy]}[kind]
    rng = random.Random(seed)
    swap_rate = 0.3 if swap else 0.0
    played = [
        play_game(game, geometry, policies[i % len(policies)], rng, swap_rate, observe=i % 10 == 0)
        for i in range(count)
    ]
    ours = replay(binary, parameters, [(actions, i % 10 == 0) for i, (actions, _) in enumerate(played)])
    label = f"base {base}, swap {'on' if swap else 'off'}, {kind}"
    before = mismatches[label]
    ends = Counter()
    positions = 0
    for (actions, records), lines in zip(played, ours):
        compared, end = compare(label, geometry, actions, records, lines, mismatches, shown)
        positions += compared
        ends[end.removeprefix("end ")] += 1
    totals["games"] += count
    totals["positions"] += positions
    totals["moves"] += sum(len(actions) for actions, _ in played)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(ends.items()))
    print(f"{label}: {count} games, {positions} positions compared, "
          f"{mismatches[label] - before} mismatches; endings: {summary}")
    return ends


def bench(binary, base, swap, games, seed):
    """Random games per CPU second (CPU time, so that other jobs on the
    machine do not skew the comparison): OpenSpiel driven from Python,
    OpenSpiel's C++ MCTSBot doing one random rollout per simulation from the
    start, and the engine through the Game trait."""
    name = f"havannah(board_size={base}{',swap=True' if swap else ''})"
    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    start = time.process_time()
    moves = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
    python_loop = games / (time.process_time() - start)

    simulations = games * 10
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, simulations, 1000, False, seed, False)
    start = time.process_time()
    bot.step(game.new_initial_state())
    rollouts = simulations / (time.process_time() - start)

    ours_games = games * 50
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary], input=f"game base={base} swap={int(swap)}\nbench {ours_games} {seed}\n",
                         capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    fields = dict(f.split("=") for f in out.split()[1:])
    ours = ours_games / cpu
    print(f"speed, base {base}, swap {'on' if swap else 'off'}, random games per CPU second (one core):")
    print(f"  OpenSpiel, Python loop over pyspiel:        {python_loop:8.0f}  ({games} games, "
          f"{moves / games:.0f} moves a game)")
    print(f"  OpenSpiel, C++ MCTSBot random rollouts:     {rollouts:8.0f}  ({simulations} simulations, "
          f"tree included)")
    print(f"  engine, Game trait (legal_actions + apply): {ours:8.0f}  ({ours_games} games, "
          f"{int(fields['moves']) / ours_games:.0f} moves a game)")
    print(f"  engine / OpenSpiel C++: {ours / rollouts:.1f}x; engine / OpenSpiel Python loop: "
          f"{ours / python_loop:.0f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replay", required=True, help="path of the havannah_replay binary")
    parser.add_argument("--random-games", type=int, default=2000, help="random games per swap setting (base 8)")
    parser.add_argument("--ring-games", type=int, default=1000, help="ring-heavy games per swap setting (base 8)")
    parser.add_argument("--other-bases", type=int, default=200,
                        help="games of each kind per swap setting on bases 4 and 10, and ten times as many "
                             "random ones on base 3 (where full-board draws happen); 0: none")
    parser.add_argument("--bench-games", type=int, default=300, help="OpenSpiel games for the speed measurement (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    mismatches = Counter()
    shown = [0]
    totals = Counter()
    endings = Counter()
    seed = args.seed
    plan = [(8, "random", args.random_games), (8, "ring-heavy", args.ring_games)]
    if args.other_bases:
        plan += [(base, kind, args.other_bases) for base in (4, 10) for kind in ("random", "ring-heavy")]
        plan += [(3, "random", 10 * args.other_bases)]
    for base, kind, count in plan:
        for swap in (False, True):
            seed += 1
            ends = run_config(args.replay, base, swap, kind, count, seed, mismatches, shown, totals)
            if base == 8:
                endings.update(ends)
    wins = Counter()
    for ending, count in endings.items():
        for structure in ending.split("+"):
            wins[structure] += count
    print(f"total: {totals['games']} games, {totals['moves']} moves, {totals['positions']} positions "
          f"compared, {sum(mismatches.values())} mismatches")
    print("base 8 winning structures: " + ", ".join(f"{k} {v}" for k, v in sorted(wins.items())))
    if args.bench_games:
        for swap in (False, True):
            bench(args.replay, 8, swap, args.bench_games, args.seed)
    if sum(mismatches.values()):
        print("FAILED: the engine disagrees with OpenSpiel", file=sys.stderr)
        return 1
    print("OK: the engine agrees with OpenSpiel on every position")
    return 0


if __name__ == "__main__":
    sys.exit(main())
