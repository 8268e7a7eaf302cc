// What a NATS failure says to an operator: the permission to grant, never a one-off inbox id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { natsProblem, permissionSubject } from './connect.js';

describe('natsProblem', () => {
  it('names a denied reply inbox as the permission that allows it, without its id (issue 40, item 13)', () => {
    const err = new Error('Permissions Violation for Subscription to "_INBOX.Vx1l2K3m4N5o6P7q8R9s0T.*"');
    const said = natsProblem(err);
    assert.equal(
      said,
      "the server's permissions deny these credentials to subscribe to _INBOX.> (`fleetls nats issue` writes the permissions each user needs)",
    );
    assert.doesNotMatch(said, /Vx1l2K3m4N5o6P7q8R9s0T/);
  });

  it('keeps a subject that is no inbox as the server named it', () => {
    assert.equal(permissionSubject('$JS.API.INFO'), '$JS.API.INFO');
    assert.equal(permissionSubject('fleetls.agent.web-1.walk'), 'fleetls.agent.web-1.walk');
    assert.equal(permissionSubject('_INBOX_gw.AbCdEfGhIjKlMnOpQrStUv'), '_INBOX_gw.>');
    assert.match(
      natsProblem(new Error('Permissions Violation for Publish to "$JS.API.STREAM.INFO.KV_fleetls-hosts"')),
      /deny these credentials to publish to \$JS\.API\.STREAM\.INFO\.KV_fleetls-hosts \(/,
    );
  });
});
