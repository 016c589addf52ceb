"""OpenSpiel's MCTSBot (random rollouts) as an arena player for Grand Maître.

A line protocol on stdin/stdout, one game per process:
  moves A B C ...   the game so far, as OpenSpiel action ids (replaces it)
  genmove           answers the bot's action id for the side to move
  quit
Errors are answered as `? <reason>`.

Usage: python mcts_bot.py --game 'havannah(board_size=8,swap=True)' --sims 10000 --seed 1
"""

import argparse
import sys

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="havannah(board_size=8,swap=True)")
    parser.add_argument("--sims", type=int, default=10000)
    parser.add_argument("--rollouts", type=int, default=1)
    parser.add_argument("--uct-c", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    rng = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=args.rollouts, random_state=rng)
    bot = mcts.MCTSBot(
        game,
        args.uct_c,
        args.sims,
        evaluator,
        random_state=rng,
        solve=True,
    )
    state = game.new_initial_state()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command, rest = words[0], words[1:]
        try:
            if command == "moves":
                state = game.new_initial_state()
                for word in rest:
                    state.apply_action(int(word))
                print("=", flush=True)
            elif command == "genmove":
                if state.is_terminal():
                    raise ValueError("the game is over")
                print(f"= {bot.step(state)}", flush=True)
            elif command == "quit":
                print("=", flush=True)
                return
            else:
                raise ValueError(f"unknown command '{command}'")
        except Exception as error:  # one line back, the process goes on
            print(f"? {str(error).splitlines()[0] if str(error) else type(error).__name__}", flush=True)


if __name__ == "__main__":
    main()
