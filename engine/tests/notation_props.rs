//! Property tests of the notation: no input makes the parser panic, valid positions
//! round-trip, and damaged ones are rejected with an error.
use gaps_engine::*;
use proptest::prelude::*;

fn layout_strategy() -> impl Strategy<Value = Layout> {
    (1usize..=8, 3usize..=13).prop_map(|(s, r)| Layout::new(s, r).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,300}") {
        let _ = parse_position(&text);
    }

    #[test]
    fn card_like_soup_never_panics(tokens in prop::collection::vec("(10|[A2-9TJQKa-z-.]{1,2})[SHDCEFGIshdc/-]?", 0..120)) {
        let _ = parse_position(&tokens.join(" "));
    }

    #[test]
    fn dealt_positions_round_trip(seed in any::<u64>(), layout in layout_strategy()) {
        let p = deal(seed, layout);
        let text = format_position(&p);
        prop_assert_eq!(parse_position(&text).unwrap(), p);
        // Lower case, `..` gaps and newlines are accepted too.
        let loose = text.to_lowercase().replace("--", "..").replace('/', "\n");
        prop_assert_eq!(parse_position(&loose).unwrap(), p);
    }

    #[test]
    fn swapping_a_card_for_a_duplicate_is_rejected(seed in any::<u64>(), layout in layout_strategy(), a in any::<prop::sample::Index>(), b in any::<prop::sample::Index>()) {
        let p = deal(seed, layout);
        let mut cells = p.to_cells();
        // Two different cards, drawn among the cards (not assumed: on small boards most
        // draws of two cells would be rejected, and too many rejects abort the test).
        let cards: Vec<usize> = (0..cells.len()).filter(|&k| cells[k].is_some()).collect();
        let first = a.index(cards.len());
        let (i, j) = (cards[first], cards[(first + 1 + b.index(cards.len() - 1)) % cards.len()]);
        cells[j] = cells[i];
        let text = format_cells(layout, &cells);
        let is_duplicate = matches!(parse_position(&text), Err(ParseError::DuplicateCard { .. }));
        prop_assert!(is_duplicate);
    }

    #[test]
    fn dropping_a_cell_is_rejected(seed in any::<u64>(), suits in 2usize..=8, ranks in 3usize..=13, a in any::<prop::sample::Index>()) {
        // With two or more rows the rows become ragged (one row alone would just be a
        // smaller board).
        let p = deal(seed, Layout::new(suits, ranks).unwrap());
        let text = format_position(&p);
        let mut tokens: Vec<&str> = text.split(' ').collect();
        let i = a.index(tokens.len());
        if tokens[i].contains('/') { return Ok(()); }
        tokens.remove(i);
        prop_assert!(parse_position(&tokens.join(" ")).is_err());
    }
}
