using Salsa.Census;
using Salsa.Hosting.Host;

return await SalsaServiceHost.RunAsync<CensusService>(args);
