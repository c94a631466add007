import { Module } from '@nestjs/common';
import { AuthorizationServers } from './authorization-servers';
import { ClientMetadataDocuments } from './client-metadata/client-metadata-documents.service';
import { OAuthClientsStore } from './oauth-clients.store';
import { OAuthConsentController } from './oauth-consent.controller';
import { OAuthGrants } from './oauth-grants.service';
import { PorticoOAuthProvider } from './oauth-server.provider';
import { ProtectedResourceController } from './protected-resource.controller';
import { AdminModule } from '../admin/admin.module';

/** The embedded OAuth 2.1 authorization server and the protected resource metadata. */
@Module({
  imports: [AdminModule],
  controllers: [ProtectedResourceController, OAuthConsentController],
  providers: [
    AuthorizationServers,
    ClientMetadataDocuments,
    OAuthClientsStore,
    OAuthGrants,
    PorticoOAuthProvider,
  ],
  exports: [PorticoOAuthProvider, OAuthGrants],
})
export class OAuthModule {}
