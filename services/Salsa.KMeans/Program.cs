using Salsa.Hosting.Host;
using Salsa.KMeans;

return await SalsaServiceHost.RunAsync<KMeansService>(args);
