import { Link } from 'react-router';
import { call } from '../api/client';
import { startOfLocalDay, timeZone } from '../format';
import { Empty, Money, Show, Table, useLoad } from '../ui';

export function Home() {
  const since = startOfLocalDay().toISOString();
  const stats = useLoad(() => call('get', '/admin/v1/stats', { query: { since } }), since);
  return (
    <>
      <h1>Today</h1>
      <p className="sub">Since midnight, {timeZone()}.</p>
      <Show loaded={stats} what="today's figures">
        {(s) => s.merchants.length === 0 ? <Empty>No payments or callbacks yet today.</Empty> : (
          <Table label="Today's figures per merchant">
            <thead>
              <tr><th scope="col">Merchant</th><th scope="col">Payments</th><th scope="col">Approval rate</th><th scope="col">Approved volume</th><th scope="col">Callbacks failing</th></tr>
            </thead>
            <tbody>
              {s.merchants.map((m) => (
                <tr key={m.merchant_id}>
                  <th scope="row"><Link to={`/payments?merchant_id=${encodeURIComponent(m.merchant_id)}&created_from=${encodeURIComponent(since)}`}>{m.merchant_name}</Link></th>
                  <td>{m.payments}</td>
                  <td>{m.approval_rate === null ? '—' : `${(m.approval_rate * 100).toFixed(1)} %`} <small>({m.approved} approved, {m.declined} declined)</small></td>
                  <td>{m.volume.length === 0 ? '—' : m.volume.map((v) => <div key={v.currency}><Money amount={v.amount} currency={v.currency} /></div>)}</td>
                  <td>{m.callbacks_failing > 0
                    ? <Link className="warn" to={`/callbacks?merchant_id=${encodeURIComponent(m.merchant_id)}&status=failed`}>{m.callbacks_failing}</Link>
                    : 0}</td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Show>
    </>
  );
}
