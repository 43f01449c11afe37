// A real authorization server for the tests: panva's oidc-provider, issuing RFC 9068 JWT
// access tokens (client credentials grant, resource indicators) signed with a key made at
// start, and serving its JWKS over HTTP. Usage: node server.mjs <port> <resource>
// Prints "ready <issuer>" on stdout once listening; stops on SIGTERM or when stdin closes.
import { generateKeyPairSync } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';

const [port, resource] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const scope = 'sutura:catalog.read sutura:metrics.ask sutura:sql.run sutura:values.read';
const groups = { 'finance-agent': ['finance-team'], 'staff-agent': ['staff'] };

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = { ...privateKey.export({ format: 'jwk' }), kid: 'issuer-1', alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  clients: Object.keys(groups).map((id) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_post',
    scope,
  })),
  jwks: { keys: [key] },
  scopes: scope.split(' '),
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget();
        return {
          scope,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 300,
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
  },
  extraTokenClaims: (_ctx, token) => ({ groups: groups[token.clientId] ?? [] }),
});

const server = provider.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
