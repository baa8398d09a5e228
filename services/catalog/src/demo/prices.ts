/**
 * Price history of one source listing, change by change. Each new snapshot exists because its
 * content differs from the previous one (the converter writes a row only then), so every step
 * changes something: the shelf price, a promotion, the loyalty price or the stock count.
 * Prices drift upwards over the year so the dynamics show inflation, with promotions dipping below.
 */
import type { Random } from "./random.js";
import type { Store } from "./words.js";

/** Yearly drift of shelf prices. */
const INFLATION = 0.11;
/** Stored in the cents arrays for a NULL value. */
export const NONE = -1;

export interface PriceState {
  regular: number;
  discount: number;
  loyal: number;
  available: number;
}

export class PriceWalk {
  private regular = 0;
  private promoFactor = 0;
  private loyalFactor = 0;
  private available = NONE;
  private outOfStock = false;
  readonly state: PriceState = { regular: NONE, discount: NONE, loyal: NONE, available: NONE };

  constructor(
    private readonly rng: Random,
    private readonly store: Store,
    private readonly baseCents: number,
  ) {}

  /** The first observation, at `yearFraction` (0 = a year ago, 1 = now). */
  start(yearFraction: number): PriceState {
    this.regular = this.shelfPrice(yearFraction);
    this.promoFactor = this.rng.chance(0.15) ? this.promo() : 0;
    this.loyalFactor = this.store.loyalty && this.rng.chance(0.4) ? this.loyal() : 0;
    this.available = this.store.reportsStock ? this.rng.between(0, 300) : NONE;
    this.outOfStock = false;
    return this.publish();
  }

  /** The next distinct content. `last` asks for a rarer out-of-stock ending (some listings have no price now). */
  step(yearFraction: number, last: boolean): PriceState {
    const before = { ...this.state };
    if (this.outOfStock) {
      this.outOfStock = false;
      this.available = this.store.reportsStock ? this.rng.between(5, 300) : NONE;
    } else if (this.rng.chance(last ? 0.03 : 0.01)) {
      this.outOfStock = true;
    } else {
      const r = this.rng.next();
      if (r < 0.35) this.regular = this.shelfPrice(yearFraction);
      else if (r < 0.6) this.promoFactor = this.promoFactor ? 0 : this.promo();
      else if (r < 0.75 && this.store.loyalty) this.loyalFactor = this.loyalFactor ? 0 : this.loyal();
      else if (this.store.reportsStock) this.available = this.rng.between(0, 300);
      else this.regular = this.shelfPrice(yearFraction);
    }
    this.publish();
    // Rounding can swallow a small change; nudge the shelf price until the content really differs.
    for (let attempt = 1; sameContent(before, this.state); attempt++) {
      this.regular = attempt < 4 ? this.shelfPrice(yearFraction) : this.round(this.regular * 1.1 + 1000);
      this.publish();
    }
    return this.state;
  }

  private publish(): PriceState {
    const s = this.state;
    if (this.outOfStock) {
      s.regular = NONE;
      s.discount = NONE;
      s.loyal = NONE;
      s.available = this.store.reportsStock ? 0 : NONE;
      return s;
    }
    s.regular = this.regular;
    s.discount = this.promoFactor ? this.below(this.regular * this.promoFactor) : NONE;
    s.loyal = this.loyalFactor ? this.below(this.regular * this.loyalFactor) : NONE;
    s.available = this.available;
    return s;
  }

  private shelfPrice(yearFraction: number): number {
    const trend = 1 + INFLATION * yearFraction;
    return this.round(this.baseCents * this.store.priceFactor * trend * (1 + 0.035 * this.rng.normal()));
  }

  private promo(): number {
    return 0.7 + 0.2 * this.rng.next();
  }

  private loyal(): number {
    return 0.9 + 0.07 * this.rng.next();
  }

  /** Shop-style prices: 79.99, 129.99; Fix Price charges whole roubles ending in 9. */
  private round(cents: number): number {
    const rubles = cents / 100;
    if (this.store.wholeRubles) return Math.max(1, Math.round(rubles / 10)) * 1000 - 100;
    if (rubles < 100) return Math.max(1, Math.round(rubles)) * 100 - 1;
    return Math.round(rubles / 10) * 1000 - 1;
  }

  /** A reduced price that rounding has not pushed up to the shelf price; none when there is no room. */
  private below(cents: number): number {
    const price = Math.min(this.round(cents), this.regular - (this.store.wholeRubles ? 1000 : 100));
    return price > 0 ? price : NONE;
  }
}

function sameContent(a: PriceState, b: PriceState): boolean {
  return a.regular === b.regular && a.discount === b.discount && a.loyal === b.loyal && a.available === b.available;
}
