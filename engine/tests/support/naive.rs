//! A deliberately naive Heraldis, written for the tests only: a 5×5 array of
//! cells, its own layout and position readers, lines found by walking the
//! board in four directions, moves as strings. It shares no code with the
//! engine, so that the two can check each other.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Piece {
    Light,
    Dark,
}

/// `board[rank][file]`, rank 0 is rank 1.
#[derive(Clone, Debug)]
pub struct NaiveState {
    pub board: [[Option<Piece>; 5]; 5],
    pub to_move: Piece,
    pub truce: Option<(usize, usize)>,
    pub ply: u32,
}

/// Each cell's symbols: one letter for a House, two for an Alliance.
pub struct NaiveGame {
    pub sites: [[Vec<char>; 5]; 5],
    pub ply_limit: u32,
}

impl NaiveGame {
    pub fn new(layout: &str) -> NaiveGame {
        let ranks: Vec<&str> = layout.split('/').collect();
        assert_eq!(ranks.len(), 5);
        let mut sites: [[Vec<char>; 5]; 5] = Default::default();
        for (row, text) in ranks.iter().enumerate() {
            let tokens: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(tokens.len(), 5);
            for (file, token) in tokens.iter().enumerate() {
                sites[4 - row][file] = token.chars().collect();
            }
        }
        NaiveGame {
            sites,
            ply_limit: 150,
        }
    }

    pub fn parse(&self, text: &str) -> NaiveState {
        let fields: Vec<&str> = text.split(' ').collect();
        let mut board = [[None; 5]; 5];
        for (row, rank_text) in fields[0].split('/').enumerate() {
            let mut file = 0;
            for c in rank_text.chars() {
                match c {
                    'L' => {
                        board[4 - row][file] = Some(Piece::Light);
                        file += 1;
                    }
                    'D' => {
                        board[4 - row][file] = Some(Piece::Dark);
                        file += 1;
                    }
                    digit => file += digit.to_digit(10).expect("digit") as usize,
                }
            }
        }
        let truce = if fields[2] == "-" {
            None
        } else {
            let b = fields[2].as_bytes();
            Some(((b[1] - b'1') as usize, (b[0] - b'a') as usize))
        };
        NaiveState {
            board,
            to_move: if fields[1] == "l" {
                Piece::Light
            } else {
                Piece::Dark
            },
            truce,
            ply: fields[3].parse().expect("ply"),
        }
    }

    fn four_in_row(&self, state: &NaiveState, piece: Piece) -> bool {
        let directions = [(0i32, 1i32), (1, 0), (1, 1), (1, -1)];
        for rank in 0..5i32 {
            for file in 0..5i32 {
                for (dr, df) in directions {
                    let mut count = 0;
                    for k in 0..4 {
                        let (r, f) = (rank + k * dr, file + k * df);
                        if (0..5).contains(&r)
                            && (0..5).contains(&f)
                            && state.board[r as usize][f as usize] == Some(piece)
                        {
                            count += 1;
                        }
                    }
                    if count == 4 {
                        return true;
                    }
                }
            }
        }
        false
    }

    pub fn is_over(&self, state: &NaiveState) -> bool {
        let last = other(state.to_move);
        if self.four_in_row(state, last) {
            return true;
        }
        let full = state.board.iter().flatten().all(|c| c.is_some());
        full || state.ply >= self.ply_limit
    }

    fn owns_house_of(&self, state: &NaiveState, piece: Piece, symbol: char) -> bool {
        for rank in 0..5 {
            for file in 0..5 {
                if self.sites[rank][file] == vec![symbol] && state.board[rank][file] == Some(piece)
                {
                    return true;
                }
            }
        }
        false
    }

    /// Legal moves as `(rank, file)` targets, or `None` for a pass.
    pub fn moves(&self, state: &NaiveState) -> Vec<Option<(usize, usize)>> {
        let mut moves = Vec::new();
        if self.is_over(state) {
            return moves;
        }
        let me = state.to_move;
        let on_board = state
            .board
            .iter()
            .flatten()
            .filter(|&&c| c == Some(me))
            .count();
        if on_board == 13 {
            moves.push(None);
            return moves;
        }
        for rank in 0..5 {
            for file in 0..5 {
                let site = &self.sites[rank][file];
                match state.board[rank][file] {
                    None => {
                        if state.ply == 0 && site.len() == 1 {
                            continue; // the First Oath
                        }
                        moves.push(Some((rank, file)));
                    }
                    Some(p) if p != me => {
                        if site.len() == 2
                            && self.owns_house_of(state, me, site[0])
                            && self.owns_house_of(state, me, site[1])
                            && state.truce != Some((rank, file))
                        {
                            moves.push(Some((rank, file)));
                        }
                    }
                    Some(_) => {}
                }
            }
        }
        moves
    }

    pub fn play(&self, state: &NaiveState, action: Option<(usize, usize)>) -> NaiveState {
        let mut next = state.clone();
        next.truce = None;
        if let Some((rank, file)) = action {
            if state.board[rank][file].is_some() {
                next.truce = Some((rank, file));
            }
            next.board[rank][file] = Some(state.to_move);
        }
        next.to_move = other(state.to_move);
        next.ply += 1;
        next
    }

    pub fn perft(&self, state: &NaiveState, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.moves(state)
            .into_iter()
            .map(|m| self.perft(&self.play(state, m), depth - 1))
            .sum()
    }

    pub fn move_name(&self, state: &NaiveState, action: Option<(usize, usize)>) -> String {
        match action {
            None => "pass".to_string(),
            Some((rank, file)) => {
                let name = format!("{}{}", (b'a' + file as u8) as char, rank + 1);
                if state.board[rank][file].is_some() {
                    format!("x{name}")
                } else {
                    name
                }
            }
        }
    }
}

fn other(piece: Piece) -> Piece {
    match piece {
        Piece::Light => Piece::Dark,
        Piece::Dark => Piece::Light,
    }
}
