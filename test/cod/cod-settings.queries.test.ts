import { describe, expect, it } from 'vitest';
import { findCodSettings, writeCodSettings } from '../../src/cod/cod-settings.queries.js';
import { useTestApp } from '../helpers/app.js';
import { shop } from '../helpers/orders.js';

const ctx = useTestApp();

describe('cod_settings', () => {
  it('reads the defaults until written, then keeps what a later change leaves out', async () => {
    const { companyId } = await shop(ctx);
    expect(await findCodSettings(ctx.db, companyId)).toMatchObject({ confirm_before_booking: false, blocked_pincodes: [], updated_at: null });
    await writeCodSettings(ctx.db, companyId, { blocked_pincodes: ['560001', '110001-110099'], max_order_value: '4999.00' });
    const after = await writeCodSettings(ctx.db, companyId, { confirm_before_booking: true, rto_threshold: 2 });
    expect(after).toMatchObject({ confirm_before_booking: true, blocked_pincodes: ['560001', '110001-110099'], max_order_value: '4999.00', rto_threshold: 2 });
    expect(await writeCodSettings(ctx.db, companyId, { max_order_value: null })).toMatchObject({ max_order_value: null, rto_threshold: 2 });
  });
});
