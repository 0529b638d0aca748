// Warner's coins (1965): a fair coin, then on tails a second coin that says "send the opposite"
// with probability q, so an answer is reversed with probability p = q / 2. The same functions
// as survey_app/privacy/parameters.py's, pinned to them by tests/warner_coins.json.

/** The flip probability p = q / 2 that Warner's coins set. */
export function flipProbabilityFromWarnerQ(warnerQ) {
  return warnerQ / 2;
}

/** Warner's q = 2 p: the second coin's chance of "the opposite" for the flip probability p. */
export function warnerQFromFlipProbability(flipProbability) {
  return 2 * flipProbability;
}
