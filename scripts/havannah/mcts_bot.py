"""OpenSpiel's C++ MCTSBot (random rollouts) as an arena player for Grand Maître.

A line protocol on stdin/stdout, one game per process:
  moves A B C ...   the game so far, as OpenSpiel action ids (replaces it)
  genmove           answers the bot's action id for the side to move
  quit
Errors are answered as `? <reason>`.

Usage: python mcts_bot.py --game 'havannah(board_size=8,swap=True)' --sims 10000 --seed 1
"""

import argparse
import sys

import pyspiel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="havannah(board_size=8,swap=True)")
    parser.add_argument("--sims", type=int, default=10000)
    parser.add_argument("--rollouts", type=int, default=1)
    parser.add_argument("--uct-c", type=float, default=1.4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = pyspiel.load_game(args.game)
    # The C++ bot (about 30 times faster than open_spiel.python's): random
    # rollouts, UCT, 1 000 MB of tree, no solver, quiet.
    evaluator = pyspiel.RandomRolloutEvaluator(args.rollouts, args.seed)
    bot = pyspiel.MCTSBot(
        game, evaluator, args.uct_c, args.sims, 1000, False, args.seed, False
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
