import request from 'supertest';
import { CLIENT_REDIRECT, clientDocument, startDocumentServer } from '../support/document-server';
import { opensslAvailable } from '../support/openssl-available';
import { startTestApp } from '../support/test-app';

/**
 * Client ID Metadata Documents on an app of the run's database, as configured by default and
 * switched off. What a Portico that fetches them does, in a process of its own on the embedded
 * database whatever the run, is in oauth-client-metadata.e2e-spec.ts, which runs once.
 */

(opensslAvailable ? describe : describe.skip)(
  'Client ID Metadata Documents, by default and switched off',
  () => {
    it('never fetches from loopback unless configured to, and says why it refuses', async () => {
      const documents = await startDocumentServer();
      const t = await startTestApp({ publicUrl: true });
      try {
        const clientId = `${documents.origin}/client.json`;
        documents.serve('/client.json', { body: clientDocument(clientId) });
        const refused = await request(t.baseUrl)
          .get('/oauth/authorize')
          .query({ client_id: clientId, redirect_uri: CLIENT_REDIRECT, response_type: 'code' })
          .expect(400);
        expect(refused.body).toEqual({
          error: 'invalid_client',
          error_description: `The client metadata document ${clientId} is on a special-use address (private, loopback, link-local, ...), which Portico does not fetch`,
        });
        expect(documents.requests).toEqual([]);
        // Nor can a token request make it fetch.
        const token = await request(t.baseUrl)
          .post('/oauth/token')
          .type('form')
          .send({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId })
          .expect(400);
        expect(token.body.error).toBe('invalid_client');
        expect(documents.requests).toEqual([]);
      } finally {
        await t.close();
        await documents.close();
      }
    });

    it('neither advertises nor accepts them when OAUTH_CIMD_ENABLED is false', async () => {
      const t = await startTestApp({
        publicUrl: true,
        env: { OAUTH_CIMD_ENABLED: 'false' },
      });
      try {
        const metadata = await request(t.baseUrl)
          .get('/.well-known/oauth-authorization-server')
          .expect(200);
        expect(metadata.body.client_id_metadata_document_supported).toBe(false);
        const refused = await request(t.baseUrl)
          .get('/oauth/authorize')
          .query({
            client_id: 'https://app.example.com/client.json',
            redirect_uri: CLIENT_REDIRECT,
          })
          .expect(400);
        expect(refused.body).toEqual({
          error: 'invalid_client',
          error_description: 'Client ID Metadata Documents are not accepted by this server',
        });
      } finally {
        await t.close();
      }
    });
  },
);
