/**
 * The stratified order of a run that may stop early on balanced accuracy: the decisions fall
 * into cells (criterion × gold option id), and the order is a sequence of rounds, each drawing
 * one decision of every cell uniformly at random, with replacement. A round's outcomes are
 * then independent, each with its cell's rate over the whole set, so a weighted mean of cell
 * rates (balanced accuracy, accuracy, order consistency …) is bounded from complete rounds by
 * one betting capital with a stake per cell (../../math/betting.ts `stratifiedRateBounds`), as
 * tight as one pooled rate when the stakes are equal: every class is learnt from the first
 * look, and no class's bet is learnt apart. A decision drawn again is not scored again.
 */
import { mulberry32, shuffleInPlace as shuffle } from '../../math/random.ts'

/** One cell of the stratified order: a criterion's decisions with one gold option id. */
export interface Cell {
  readonly criterion: string
  readonly gold: string
  readonly size: number
}

/** The cells of a labelled set, and each metric's stake per cell. */
export class Strata {
  readonly cells: Cell[] = []
  private readonly index = new Map<string, number>()

  constructor(labelled: readonly { criterion: string; gold: string }[]) {
    const sizes: number[] = []
    for (const { criterion, gold } of labelled) {
      const key = cellKey(criterion, gold)
      let k = this.index.get(key)
      if (k === undefined) {
        k = this.index.size
        this.index.set(key, k)
        this.cells.push({ criterion, gold, size: 0 })
        sizes.push(0)
      }
      sizes[k]!++
    }
    this.cells = this.cells.map((cell, k) => ({ ...cell, size: sizes[k]! }))
  }

  /** The cell of a decision, or undefined for one outside the labelled set. */
  cellOf(criterion: string, gold: string): number | undefined {
    return this.index.get(cellKey(criterion, gold))
  }

  /** Stakes of a rate over every decision (accuracy, order consistency): each cell by its size. */
  pooledStakes(): number[] {
    return this.cells.map((cell) => cell.size)
  }

  /** Stakes of balanced accuracy (the mean recall of gold ids): each gold id alike, its cells by their sizes. */
  balancedStakes(): number[] {
    const perGold = new Map<string, number>()
    for (const { gold, size } of this.cells) perGold.set(gold, (perGold.get(gold) ?? 0) + size)
    return this.cells.map(({ gold, size }) => size / perGold.get(gold)!)
  }

  /** Stakes of one criterion's balanced accuracy: its cells alike, every other cell none. */
  criterionStakes(criterion: string): number[] {
    return this.cells.map((cell) => (cell.criterion === criterion ? 1 : 0))
  }
}

function cellKey(criterion: string, gold: string): string {
  return JSON.stringify([criterion, gold])
}

/** A seeded stratified order: the rounds of draws, and each decision's place in the scoring order. */
export interface StratifiedOrder {
  /** Row indices, round after round, one per cell per round (in a seeded order within the round). */
  readonly draws: Int32Array
  /** Draws per round: the cells that have decisions. */
  readonly roundSize: number
  /** Every row once: as first drawn, then the rows never drawn in a seeded random order. */
  readonly rowOrder: readonly number[]
}

/**
 * Rounds of draws over the rows' cells (`cells[r]` is row r's cell) until every row was drawn
 * or the draws would pass `maxDraws` (a bound on memory; the rows left follow in a seeded order).
 */
export function stratifiedOrder(cells: readonly number[], cellCount: number, seed: number, maxDraws = 2 * cells.length): StratifiedOrder {
  const members: number[][] = Array.from({ length: cellCount }, () => [])
  cells.forEach((k, r) => members[k]!.push(r))
  const live = members.map((_, k) => k).filter((k) => members[k]!.length > 0)
  const roundSize = live.length
  const rounds = roundSize === 0 ? 0 : Math.max(1, Math.floor(maxDraws / roundSize))
  const random = mulberry32((seed ^ 0x57a7) >>> 0)
  const seen = new Uint8Array(cells.length)
  const rowOrder: number[] = []
  const draws: number[] = []
  for (let round = 0; round < rounds && rowOrder.length < cells.length; round++) {
    for (const k of shuffle([...live], random)) {
      const row = members[k]![Math.floor(random() * members[k]!.length)]!
      draws.push(row)
      if (!seen[row]) {
        seen[row] = 1
        rowOrder.push(row)
      }
    }
  }
  const rest = shuffle(
    cells.map((_, r) => r).filter((r) => !seen[r]),
    random,
  )
  return { draws: Int32Array.from(draws), roundSize, rowOrder: [...rowOrder, ...rest] }
}
