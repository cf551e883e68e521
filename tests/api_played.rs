//! Games in progress through the API (docs/http.md, "A game in progress"): a job with
//! `played` answers about the position its steps reach, with the redeals left (checked
//! against the plain reference over rounds, its line replayed from that state); the
//! same question is answered again from the store; a review names the reference's
//! fatal step; bad steps are a 422 and store nothing; and none of it changes the deal's
//! own verdicts or the win rates.
use crate::cli_played::random_play;
use crate::support::start;
use gaps_engine::*;
use serde_json::{json, Value};

/// The reference's answer for the state after the played steps.
fn reference(state: &GameState) -> bool {
    match state.redeals() {
        Some(r) => winnable_with_redeals(
            &state.position,
            Variant::Common,
            &r.stream,
            r.count,
            200_000,
        ),
        None => reachable(&state.position, Variant::Common, 200_000).winnable,
    }
    .expect("small enough")
}

/// Plays a JSON continuation from `state`: every step legal, redeals numbered on from
/// the played ones and within those left; whether it ends won.
fn replays_to_a_win(state: &GameState, steps: &[Value]) -> bool {
    let mut pos = state.position;
    let mut redeals = state.redeals();
    let mut number = state.redeals_used;
    for step in steps {
        if let Some(k) = step.get("redeal") {
            number += 1;
            assert_eq!(k, &json!(number), "{step}");
            let r = redeals.as_mut().expect("a stream");
            assert!(r.count > 0, "no redeal left: {step}");
            r.count -= 1;
            pos = redeal(&pos, Variant::Common, &mut r.stream).expect("a redeal");
            continue;
        }
        let card = parse_card(step["card"].as_str().unwrap()).unwrap().unwrap();
        let at = |k: &str| {
            let v = &step[k];
            (
                v[0].as_u64().unwrap() as usize,
                v[1].as_u64().unwrap() as usize,
            )
        };
        let line = PlayedLine::replay(
            GameState::start(pos, None),
            Variant::Common,
            None,
            &[PlayedStep::Move {
                card,
                from: at("from"),
                to: at("to"),
            }],
        )
        .expect("a legal step");
        pos = line.last().position;
    }
    pos.is_won(Variant::Common)
}

#[tokio::test]
async fn a_game_in_progress_is_answered_where_it_stands_and_again_from_the_store() {
    let t = start().await;
    let layout = Layout::new(3, 5).unwrap();
    let mut rng = SplitMix64::new(68);
    let mut seen = [0usize; 2];
    for seed in 0..16 {
        let source = DealSource::Numbered { seed, layout };
        let redeals = (seed % 3) as u8;
        let (line, played) = random_play(source, redeals, &mut rng);
        let request = json!({"deal": {"seed": seed, "suits": 3, "ranks": 5}, "variant": "common",
            "redeals": redeals, "played": played, "limits": {"time_ms": 20000}});
        let job = t.post_job(request.clone(), "?wait_ms=30000").await;
        assert_eq!(job["state"], "done", "{job}");
        let state = line.last();
        let expected = reference(state);
        assert_eq!(
            job["verdict"],
            if expected { "solvable" } else { "unsolvable" },
            "{job}"
        );
        assert_eq!(job["played_steps"], played.len());
        assert_eq!(job["played_position"], format_position(&state.position));
        assert_eq!(job["redeals_left"], state.redeals_left());
        assert_eq!(job["played"], json!(played), "the steps, canonical");
        if expected {
            let solution = job["solution"].as_array().unwrap();
            assert!(replays_to_a_win(state, solution), "{job}");
            // A game already won needs no further step.
            assert_eq!(job.get("hint"), solution.first(), "{job}");
        } else {
            assert!(job.get("hint").is_none(), "{job}");
        }
        seen[usize::from(expected)] += 1;
        // The same question again: from the store, the same answer.
        let again = t.post_job(request, "?wait_ms=30000").await;
        assert_eq!(again["cached"], true, "{again}");
        assert_eq!(again["stats"]["answered_by_job"], job["id"]);
        for field in [
            "verdict",
            "solution",
            "played_position",
            "redeals_left",
            "hint",
        ] {
            assert_eq!(again[field], job[field], "{field}");
        }
    }
    assert!(seen.iter().all(|&n| n >= 2), "{seen:?}");
    // No verdict of a deal came from them, and no win-rate row counts them.
    let (_, _, rows) = t.call("GET", "/v1/stats/win-rates", None).await;
    assert_eq!(rows, json!([]), "{rows}");
}

#[tokio::test]
async fn following_the_line_or_playing_on_after_a_loss_is_answered_without_a_search() {
    let t = start().await;
    let layout = Layout::new(3, 5).unwrap();
    let mut rng = SplitMix64::new(69);
    let mut seen = [0usize; 2];
    for seed in 0..40 {
        let source = DealSource::Numbered { seed, layout };
        let redeals = (seed % 3) as u8;
        let (line, played) = random_play(source, redeals, &mut rng);
        let ask = |steps: &Vec<Value>| {
            json!({"deal": {"seed": seed, "suits": 3, "ranks": 5}, "variant": "common",
                "redeals": redeals, "played": steps, "limits": {"time_ms": 20000}})
        };
        let first = t.post_job(ask(&played), "?wait_ms=30000").await;
        assert_eq!(first["state"], "done", "{first}");
        let mut more = played.clone();
        if first["verdict"] == "solvable" {
            // Two steps of its own line further: the rest of that line.
            let solution = first["solution"].as_array().unwrap();
            if solution.len() < 3 {
                continue;
            }
            more.extend(solution[..2].iter().cloned());
            let next = t.post_job(ask(&more), "?wait_ms=30000").await;
            assert_eq!(next["cached"], true, "{next}");
            assert_eq!(next["stats"]["answered_by_job"], first["id"], "{next}");
            assert_eq!(next["verdict"], "solvable");
            assert_eq!(next["solution"], json!(solution[2..]), "{next}");
            assert_eq!(next["hint"], solution[2], "{next}");
            assert_eq!(next["fewest_redeals"], first["fewest_redeals"], "{next}");
            assert_eq!(next["played_steps"], more.len());
            seen[1] += 1;
            // A step off the line is searched.
            let state = line.last();
            let mut list = MoveList::<MAX_MOVES>::default();
            state.position.legal_moves(Variant::Common, &mut list);
            let off = list.as_slice().iter().find(|m| {
                let step = json!({"card": m.card.to_string(), "from": [m.from_rc().0, m.from_rc().1],
                    "to": [m.to_rc().0, m.to_rc().1]});
                step != solution[0]
            });
            if let Some(m) = off {
                let mut other = played.clone();
                other.push(
                    json!({"card": m.card.to_string(), "from": [m.from_rc().0, m.from_rc().1],
                    "to": [m.to_rc().0, m.to_rc().1]}),
                );
                let searched = t.post_job(ask(&other), "?wait_ms=30000").await;
                assert_eq!(searched["cached"], false, "{searched}");
            }
        } else {
            assert_eq!(first["verdict"], "unsolvable", "{first}");
            // Any legal step after a loss: still lost, from the store.
            let state = line.last();
            let mut list = MoveList::<MAX_MOVES>::default();
            state.position.legal_moves(Variant::Common, &mut list);
            let Some(m) = list.as_slice().first() else {
                continue;
            };
            more.push(
                json!({"card": m.card.to_string(), "from": [m.from_rc().0, m.from_rc().1],
                "to": [m.to_rc().0, m.to_rc().1]}),
            );
            let next = t.post_job(ask(&more), "?wait_ms=30000").await;
            assert_eq!(next["cached"], true, "{next}");
            assert_eq!(next["stats"]["answered_by_job"], first["id"], "{next}");
            assert_eq!(next["verdict"], "unsolvable", "{next}");
            assert_eq!(next["solution"], first["solution"], "{next}");
            assert!(next.get("hint").is_none(), "{next}");
            seen[0] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n >= 2), "{seen:?}");
}

#[tokio::test]
async fn a_pysol_game_in_progress_is_given_on_its_board() {
    let t = start().await;
    let whole = t
        .post_job(
            json!({"pysol": {"game": "montana", "number": 5}, "limits": {"time_ms": 20000}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(whole["verdict"], "solvable", "{whole}");
    let played = &whole["pysol"]["board_solution"].as_array().unwrap()[..10];
    let job = t
        .post_job(
            json!({"pysol": {"game": "montana", "number": 5}, "played": played,
                   "limits": {"time_ms": 20000}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["verdict"], "solvable", "{job}");
    assert_eq!(
        job["cached"], false,
        "the deal's own answer must not serve it"
    );
    assert_eq!(job["redeals_left"], 2);
    assert_eq!(
        job["board_hint"], job["pysol"]["board_solution"][0],
        "{job}"
    );
    assert!(job["played_board"].is_string());
    // The game counts once in its win-rate row (the whole game's job), not twice.
    assert_eq!(t.win_rate_deals("pysol-montana").await, 1);
}

#[tokio::test]
async fn a_review_job_names_the_references_fatal_step() {
    let t = start().await;
    let layout = Layout::new(3, 5).unwrap();
    let mut rng = SplitMix64::new(2027);
    let mut found = [0usize; 3];
    for seed in 0..24 {
        let source = DealSource::Numbered { seed, layout };
        let redeals = (seed % 2) as u8;
        let (line, played) = random_play(source, redeals, &mut rng);
        let truth: Vec<bool> = line.states.iter().map(reference).collect();
        let job = t
            .post_job(
                json!({"deal": {"seed": seed, "suits": 3, "ranks": 5}, "variant": "common",
                       "redeals": redeals, "played": played, "review": true,
                       "limits": {"time_ms": 20000}}),
                "?wait_ms=30000",
            )
            .await;
        assert_eq!(job["review_requested"], true);
        let review = &job["review"];
        match truth.iter().position(|&w| !w) {
            None => {
                assert_eq!(review["still_winnable"], true, "{job}");
                assert_eq!(job["verdict"], "solvable", "{job}");
                found[1] += 1;
            }
            Some(0) => {
                assert_eq!(review["lost_from_start"], true, "{job}");
                assert_eq!(job["verdict"], "unsolvable", "{job}");
                found[2] += 1;
            }
            Some(lost) => {
                assert_eq!(review["fatal_step"], lost - 1, "{job}");
                let before = &line.states[lost - 1];
                let winning = review["winning_line"].as_array().unwrap();
                assert!(replays_to_a_win(before, winning), "{job}");
                found[0] += 1;
            }
        }
    }
    assert!(found.iter().all(|&n| n >= 1), "{found:?}");
    // Without steps, a review is of the deal alone.
    let job = t
        .post_job(
            json!({"deal": {"seed": 1, "suits": 3, "ranks": 5}, "variant": "common",
                   "review": true, "limits": {"time_ms": 20000}}),
            "?wait_ms=30000",
        )
        .await;
    assert_eq!(job["played_steps"], 0, "{job}");
    assert_eq!(job["review"]["still_winnable"], true, "{job}");
}

#[tokio::test]
async fn bad_played_steps_are_a_422_and_store_nothing() {
    let t = start().await;
    let montana = json!({"game": "montana", "number": 5});
    let too_many: Vec<Value> = (0..5001).map(|_| json!({"redeal": 1})).collect();
    let cases = [
        (
            json!({"pysol": montana, "played": [{"card": "8S", "from": [0, 1], "to": [0, 0]}]}),
            "played: played step 0: the gap at (0,0) does not take 8S",
        ),
        (
            json!({"pysol": montana, "played": [{"redeal": 1}, {"redeal": 2}, {"redeal": 3}]}),
            "played step 2: no redeal is left (the game allows 2)",
        ),
        (
            json!({"pysol": montana, "redeals": 0, "played": [{"redeal": 1}]}),
            "no redeal is left (the game allows 0)",
        ),
        (
            json!({"pysol": montana, "played": [{"card": "XX", "from": [0, 1], "to": [0, 0]}]}),
            "`XX` is not a card",
        ),
        (
            json!({"position": "2S 3S -- 4H/2H 3H 4S --", "variant": "common",
                "played": [{"card": "4S", "from": [1, 2], "to": [0, 3]}]}),
            "(0,3) is not a gap: 4H is there",
        ),
    ];
    for (body, message) in cases {
        t.assert_unprocessable("/v1/jobs", &body, message).await;
    }
    // Too many steps: refused, by the body's size or by the steps' count.
    let text = json!({"pysol": montana, "played": too_many}).to_string();
    let (status, _, _) = t.call("POST", "/v1/jobs", Some(&text)).await;
    assert!(status.is_client_error(), "{status}");
    assert_eq!(t.job_count().await, 0);
}

#[tokio::test]
async fn a_game_in_progress_is_stored_and_found_again_on_postgres() {
    let Some(t) = crate::support::start_on_postgres().await else {
        return;
    };
    let layout = Layout::new(3, 5).unwrap();
    let mut rng = SplitMix64::new(5);
    let (line, played) = random_play(DealSource::Numbered { seed: 7, layout }, 1, &mut rng);
    let request = json!({"deal": {"seed": 7, "suits": 3, "ranks": 5}, "variant": "common",
        "redeals": 1, "played": played, "review": true, "limits": {"time_ms": 20000}});
    let job = t.post_job(request.clone(), "?wait_ms=30000").await;
    assert_eq!(job["state"], "done", "{job}");
    assert_eq!(
        job["played_position"],
        format_position(&line.last().position)
    );
    assert!(job["review"].is_object(), "{job}");
    let again = t.post_job(request, "?wait_ms=30000").await;
    assert_eq!(again["cached"], true, "{again}");
    assert_eq!(again["review"], job["review"]);
}
