import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { createCompanyWithKey } from '../helpers/fixtures.js';
import { BASE } from '../helpers/orders.js';
import { generateCatalogue } from '../../src/catalogue/catalogue.generate.js';
import { likeWord, searchWords } from '../../src/catalogue/catalogue.queries.js';
import { productsMatching, WordCache, type CatalogueModel } from '../../src/catalogue/read-model.js';

/**
 * Search words answered from the read model's word cache mean exactly what the database's `LIKE '%word%'`
 * over search_text means: checked through HTTP against the database's own answer on a generated catalogue, on the first
 * search of each word (the database's index) and the next (the model).
 */

/** A small seeded generator: the same cases on every run. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('word cache (no database)', () => {
  const model = (n: number) => {
    const products = Array.from({ length: n }, (_, position) => ({ id: `p${position}`, position }));
    return { products, words: new WordCache(WordCache.positionsFor(n)) } as unknown as CatalogueModel;
  };

  it('intersects the cached words exactly, in browse order, and answers nothing until every word is cached', () => {
    const rnd = random(42);
    const m = model(500);
    const sets = new Map<string, number[]>();
    for (const w of ['aaa', 'bbb', 'ccc', 'ddd']) {
      const positions = m.products.flatMap((p) => (rnd() < 0.4 ? [(p as unknown as { position: number }).position] : []));
      sets.set(w, positions);
      m.words.set(w, Int32Array.from(positions));
    }
    for (const words of [['aaa'], ['aaa', 'bbb'], ['ddd', 'aaa', 'ccc'], ['aaa', 'bbb', 'ccc', 'ddd']]) {
      const expected = m.products.map((_, i) => i).filter((i) => words.every((w) => sets.get(w)!.includes(i)));
      expect(expected.length, words.join()).toBeGreaterThan(0);
      expect(productsMatching(m, words)!.map((p) => p.id)).toEqual(expected.map((i) => `p${i}`));
    }
    expect(productsMatching(m, ['aaa', 'eee'])).toBeUndefined();
  });

  it('is bounded: least recently used words leave past 1,000 words or its positions, which grow with the catalogue', () => {
    expect([10, 10_000, 100_000, 1_000_000].map((n) => WordCache.positionsFor(n))).toEqual([2_000, 200_000, 2_000_000, 2_000_000]);
    const cache = new WordCache(100_000);
    for (let i = 0; i < WordCache.MAX_WORDS; i++) cache.set(`w${i}`, Int32Array.of(i));
    cache.get('w0'); // used: now the most recent
    cache.set('new', Int32Array.of(1));
    expect(cache.size).toBe(WordCache.MAX_WORDS);
    expect(cache.get('w0')).toBeDefined();
    expect(cache.get('w1')).toBeUndefined();
    cache.set('big', new Int32Array(100_000 - 10));
    expect(cache.get('big')).toBeDefined();
    expect(cache.size).toBeLessThan(WordCache.MAX_WORDS - 5);
    cache.set('huge', new Int32Array(100_000 + 1)); // never kept: the database answers it each time
    expect(cache.get('huge')).toBeUndefined();
  });
});

const ctx = useTestApp();

describe('search from the read model, through HTTP', () => {
  it("answers every word as the database's LIKE over search_text does: same products, same order, same total", async () => {
    const co = await createCompanyWithKey(ctx.services);
    const companyId = co.company.id;
    await generateCatalogue(ctx.db, companyId, { products: 400, seed: 11 });
    const texts = (await ctx.db.query<{ search_text: string }>(sql`SELECT search_text FROM products WHERE company_id = ${companyId} AND listed`)).map(
      (r) => r.search_text,
    );
    expect(texts.length).toBeGreaterThan(300);
    const [{ brand }] = await ctx.db.query<{ brand: string }>(
      sql`SELECT brand_id AS brand FROM products WHERE company_id = ${companyId} AND listed AND brand_id IS NOT NULL GROUP BY brand_id ORDER BY count(*) DESC LIMIT 1`,
    );

    // words cut from the texts (inside a token, across a space, whole identifiers), pairs of them, and ones no text has
    const rnd = random(7);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const cut = () => {
      const t = pick(texts);
      const at = Math.floor(rnd() * (t.length - 3));
      return t.slice(at, at + 3 + Math.floor(rnd() * 7)).trim();
    };
    const queries = [
      ...Array.from({ length: 25 }, cut),
      ...Array.from({ length: 10 }, () => `${cut()} ${cut()}`),
      pick(texts).split(' ')[1], // a whole SKU-like token
      'zzzqqq',
      'KURTA',
      'cotton%',
      'ab', // under three characters: the database's index scan, cached alike
    ].filter((q) => searchWords(q).length > 0);
    expect(queries.length).toBeGreaterThan(25);

    let nonEmpty = 0;
    for (const query of queries) {
      const words = searchWords(query);
      const likes = sql.join(
        words.map((w) => sql`search_text LIKE ${likeWord(w)}`),
        sql` AND `,
      );
      const truth = (
        await ctx.db.query<{ id: string }>(sql`SELECT id FROM products WHERE company_id = ${companyId} AND listed AND ${likes} ORDER BY sort_name, id`)
      ).map((r) => r.id);
      // twice: the first answer comes from the database's index, the second from the words the model kept
      for (const round of ['database', 'model']) {
        const res = await ctx.app.inject({ url: `${BASE}/catalog/products?limit=50&search=${encodeURIComponent(query)}`, headers: { 'x-api-key': co.key } });
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect({ round, query, total: body.total, ids: body.data.map((p: { product_id: string }) => p.product_id) }).toEqual({
          round,
          query,
          total: truth.length,
          ids: truth.slice(0, 50),
        });
      }
      // a later page, and the words within one brand, from the model
      const later = await ctx.app.inject({
        url: `${BASE}/catalog/products?limit=5&offset=2&search=${encodeURIComponent(query)}`,
        headers: { 'x-api-key': co.key },
      });
      expect(later.json().data.map((p: { product_id: string }) => p.product_id)).toEqual(truth.slice(2, 7));
      const branded = (
        await ctx.db.query<{ id: string }>(
          sql`SELECT id FROM products WHERE company_id = ${companyId} AND listed AND brand_id = ${brand} AND ${likes} ORDER BY sort_name, id`,
        )
      ).map((r) => r.id);
      const inBrand = await ctx.app.inject({
        url: `${BASE}/catalog/products?limit=50&brand=${brand}&search=${encodeURIComponent(query)}`,
        headers: { 'x-api-key': co.key },
      });
      expect({ query, total: inBrand.json().total, ids: inBrand.json().data.map((p: { product_id: string }) => p.product_id) }).toEqual({
        query,
        total: branded.length,
        ids: branded.slice(0, 50),
      });
      if (truth.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });
});
