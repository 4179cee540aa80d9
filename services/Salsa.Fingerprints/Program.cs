using Salsa.Fingerprints;
using Salsa.Hosting.Host;

return await SalsaServiceHost.RunAsync<FingerprintsService>(args);
