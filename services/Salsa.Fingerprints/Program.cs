using Salsa.Fingerprints;
using Salsa.Hosting.Host;

await SalsaServiceHost.Create<FingerprintsService>(args).RunAsync();
