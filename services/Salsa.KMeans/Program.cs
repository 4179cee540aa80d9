using Salsa.Hosting.Host;
using Salsa.KMeans;

await SalsaServiceHost.Create<KMeansService>(args).RunAsync();
